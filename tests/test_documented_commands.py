"""Every `codur ...` command the README and docs/*.md show is one the CLI takes: each is
parsed by the real command line (commands, options and their values checked; nothing
runs), and docs/cli.md names every command and option the CLI has."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import typer
import typer.main
from helpers import ROOT
from typer._click.exceptions import (
    BadOptionUsage,
    ClickException,
    MissingParameter,
    NoArgsIsHelpError,
)
from typer.core import TyperGroup

from codur.cli import app
from codur.errors import CodurError

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^ *```([^\n]*)\n(.*?)^ *```", re.M | re.S)
SHELL_BLOCKS = {"bash", "sh", "shell", "console"}
"""Code blocks whose lines are commands; in others (a program's output, a diagram) only a
line starting with `$ ` is one."""
SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")
HEAD = re.compile(r"^(?:\$ )?(?:[\w./-]*python3? -m codur|(?:[\w.-]*/)*codur)(?= |$)")
"""The start of a line that runs Codur: `codur`, `.venv/bin/codur`, `python -m codur`."""
SHELL = {"|", "||", "&&", ";", ">", ">>", "<", "&", "2>", "(", ")"}
PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z_]*(?:\|[A-Z_]+)*|\[[A-Z_|]+\]|<[^>]*>)$")
"""A word the docs write for a value: `TASK`, `[RUN]`, `<id>`."""
OPTIONAL = re.compile(r"^\[(--?[\w-]+)\]$")
REFUSED = {("undoo",), ("fix", "the", "bug", "in", "@main.py")}
"""Commands the docs show being refused (a lone word that is no command, a task typed
without quotes)."""


def _words(line: str) -> list[str] | None:
    """The arguments after `codur` of one shell line, up to its first shell operator
    (None: the line does not start Codur, or holds an elision such as `codur ... || x`)."""
    head = HEAD.match(line.strip())
    if head is None or "..." in line:
        return None
    lexer = shlex.shlex(line.strip()[head.end() :], posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if word in SHELL:
            break
        optional = OPTIONAL.match(word)  # `[--user]`: the option, which may be left out
        words.append(optional[1] if optional else "a value" if PLACEHOLDER.match(word) else word)
    return words


def documented() -> Iterator[tuple[str, list[str]]]:
    """(where, arguments) for each `codur` command line in a code block or a code span."""
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(ROOT)
        prose = text
        for block in FENCE.finditer(text):
            prose = prose.replace(block[0], "\n" * block[0].count("\n"))
            first = text.count("\n", 0, block.start(2)) + 1
            lines = block[2].replace("\\\n", " \n").splitlines()
            shell = block[1].strip() in SHELL_BLOCKS
            for offset, line in enumerate(lines):
                words = _words(line) if shell or line.lstrip().startswith("$ ") else None
                if words is not None:
                    yield f"{name}:{first + offset}", words
        for span in SPAN.finditer(prose):
            words = _words(" ".join(span[1].replace("\\|", "|").split()))
            if words is not None:
                yield f"{name}:{prose.count(chr(10), 0, span.start()) + 1}", words


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def parse(args: list[str]) -> tuple[str, ...]:
    """Parse `codur ARGS` as the real CLI does in a terminal (`codur -v` is `codur chat
    -v` there), down to the command that would run, without running it, and return the
    words naming that command (`("prompts", "show")`): an unknown command or option, or
    a bad value, raises."""
    command = typer.main.get_command(app)
    with mock.patch("sys.stdin", _Terminal()):
        ctx = command.make_context("codur", list(args))
    while isinstance(command, TyperGroup):
        rest = [*ctx._protected_args, *ctx.args]
        name, command, rest = command.resolve_command(ctx, rest)
        ctx = command.make_context(name, rest, parent=ctx)
    return tuple(ctx.command_path.split()[1:])


def failure(args: list[str]) -> str | None:
    """Why the CLI does not take `codur ARGS` (None: it does)."""
    try:
        parse(args)
    except (typer.Exit, NoArgsIsHelpError):
        return None  # --help, --version, or a group alone: help is printed
    except (MissingParameter, BadOptionUsage) as error:
        if isinstance(error, MissingParameter) or "requires an argument" in str(error):
            return None  # a command or option named without its value, as prose does
        return str(error)
    except (ClickException, CodurError) as error:
        return str(error) or type(error).__name__
    return None


COMMANDS = list(documented())


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) > 50
    assert {"README.md", "docs/cli.md"} <= {where.split(":")[0] for where, _ in COMMANDS}


def test_every_documented_command_parses() -> None:
    wrong = [
        f"{where}: codur {shlex.join(args)}: {failure(args)}"
        for where, args in COMMANDS
        if tuple(args) not in REFUSED and failure(args)
    ]
    assert wrong == []


def test_the_refusals_shown_are_refused() -> None:
    shown = {tuple(args) for _, args in COMMANDS} & REFUSED
    assert shown == REFUSED
    assert all(failure(list(args)) for args in REFUSED)


def test_a_command_or_option_that_does_not_exist_is_caught() -> None:
    assert failure(["tools"]) and failure(["undo", "--bogus"])
    assert failure(["--max-iterations", "many", "fix @main.py"])
    assert failure(["undo", "--list"]) is None and failure(["prompts", "show", "planner"]) is None
    assert _words('codur -C DIR "TASK" --yes | head') == ["-C", "a value", "a value", "--yes"]
    assert _words("codur memory add [--user] TEXT") == ["memory", "add", "--user", "a value"]


def _commands(
    group: TyperGroup, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(the words naming it, the command) for each command under `group`, groups too."""
    for name, command in group.commands.items():
        if command.hidden:
            continue
        yield (*path, name), command
        if isinstance(command, TyperGroup):
            yield from _commands(command, (*path, name))


def test_docs_cli_names_every_command_and_option() -> None:
    """docs/cli.md is the reference: each command has a heading, each of its options is
    named under it (a heading per command, `### codur NAME`)."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^### `codur ([a-z ]+)`\n(.*?)(?=^#{1,3} |\Z)", text, re.M | re.S))
    missing = []
    for path, command in _commands(typer.main.get_command(app)):
        if isinstance(command, TyperGroup):
            continue
        section = sections.get(" ".join(path))
        if section is None:
            missing.append(" ".join(path))
            continue
        for param in command.params:
            if param.param_type_name == "option" and not any(
                f"`{opt}" in section for opt in param.opts
            ):
                missing.append(f"{' '.join(path)} {'/'.join(param.opts)}")
    assert missing == []


@pytest.mark.slow  # starts Codur: not in the fast tier
def test_each_documented_command_s_help_runs(tmp_path: Path) -> None:
    """`codur COMMAND --help` of each command the docs show, in a real process, names
    every option the docs use with it."""
    options: dict[tuple[str, ...], set[str]] = {}
    for _, args in COMMANDS:
        if tuple(args) in REFUSED:
            continue
        try:
            path = parse(args)
        except (typer.Exit, ClickException, CodurError):
            continue  # --help, --version, `codur` alone; a wrong command fails the test above
        used = args[: args.index("--")] if "--" in args else args
        named = {word.split("=")[0] for word in used if word.startswith("-") and word != "-"}
        options.setdefault(path, set()).update(named)
    assert len(options) > 15
    for path, named in sorted(options.items()):
        done = subprocess.run(
            [sys.executable, "-m", "codur", *path, "--help"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0 and "Usage:" in done.stdout, (path, done.stderr)
        shown = set(re.findall(r"(?<![\w-])--?[\w][\w-]*", done.stdout))
        assert named <= shown, (path, named - shown)
