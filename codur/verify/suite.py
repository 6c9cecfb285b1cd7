"""Running a project's tests other than through `run_pytest`: unittest discovery and the
user's test command (`verify.test_command`), in the sandbox with the project's
interpreter, and reading what they report (pytest's summary, or unittest's).

The ids a run reports say how to run them alone: `file.py::name` ids are pytest's,
dotted `module.Class.test` ids are unittest's (`selection`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from codur.errors import WorkspaceError
from codur.process import ProcessResult
from codur.tools.context import ToolContext
from codur.tools.python import TAIL_CHARS, PytestSummary, parse_pytest, stopped_reason

Runner = Literal["pytest", "unittest", "command"]
"""pytest: `python -m pytest PATHS`; unittest: `python -m unittest discover`; command:
the user's test command."""

_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$", re.MULTILINE)
_UNITTEST_END = re.compile(r"^(OK|FAILED)\b(?: \((.*)\))?\s*$", re.MULTILINE)
_UNITTEST_FAILING = re.compile(r"^(?:FAIL|ERROR): (\S+) \(([\w.]+)\)", re.MULTILINE)
_PROGRESS = re.compile(r"^[.FEsxX]+(?:\s+\[\s*\d+%\])?\s*$", re.MULTILINE)
_INTERPRETERS = ("python", "python3")


def project_command(ctx: ToolContext, command: list[str]) -> list[str]:
    """The test command as it runs: `python`/`python3` at its start is the project's
    interpreter, and `pytest` is that interpreter's `-m pytest`; anything else runs as
    written (a script of the project, `make test`)."""
    head, rest = command[0], command[1:]
    if head in _INTERPRETERS:
        return [ctx.python, *rest]
    if head == "pytest":
        return [ctx.python, "-m", "pytest", *rest]
    return list(command)


def unittest_command(ctx: ToolContext, paths: Sequence[str], patterns: list[str] = ()) -> list[str]:
    """`python -m unittest` on `paths` (`unittest_args`), only the tests matching
    `patterns` (`-k`) when given."""
    return [ctx.python, "-m", "unittest", *unittest_args(ctx.ws.root, paths, patterns)]


def unittest_args(root: Path, paths: Sequence[str], ids: Sequence[str] = ()) -> list[str]:
    """unittest's arguments in `root`: discovery from the folder `paths[0]` (its parent the
    top when it is a package), or the modules `paths` by name when they are files (test
    modules discovery's `test*.py` misses: `calc_tests.py`). Each id becomes a `-k`
    pattern that matches the test's whole dotted name, not every name it is part of
    (unittest reads a pattern without `*` as a substring: `test_add` would run
    `test_add_big` too)."""
    exact = [f"*{i.replace('[', '[[]')}" for i in ids]
    keys = [arg for p in exact for arg in ("-k", p)]
    if any(p.endswith(".py") for p in paths):
        return [p.removesuffix(".py").replace("/", ".") for p in paths] + keys
    start = paths[0]
    top = ["-t", "."] if start != "." and (root / start / "__init__.py").is_file() else []
    return ["discover", "-s", start, *top, *keys]


RUNNERS = (("uv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run"), ("pipenv", "run"))
"""Project managers' `run` prefixes before a test command."""


def reports_counts(command: Sequence[str]) -> bool:
    """Whether a test command always prints how many tests ran (pytest, unittest)."""
    return runs_pytest(command) or _python_module(command, "unittest")


def runs_pytest(command: Sequence[str]) -> bool:
    """Whether a test command is pytest itself: `pytest ...`, `python -m pytest ...`,
    either after a project manager's `run` (not `make pytest` or `tox -e pytest`)."""
    for prefix in RUNNERS:
        if tuple(command[: len(prefix)]) == prefix:
            command = command[len(prefix) :]
            break
    head = Path(command[0]).name if command else ""
    return head in ("pytest", "py.test") or _python_module(command, "pytest")


def _python_module(command: Sequence[str], module: str) -> bool:
    """Whether `command` is a Python (`python`, `python3.12`, `.venv/bin/python`) running
    `-m module`."""
    head = Path(command[0]).name if command else ""
    return re.fullmatch(r"python[\d.]*", head) is not None and list(command[1:3]) == ["-m", module]


def python_started(command: list[str]) -> list[str] | None:
    """A test command as a tracer starts it: `python -m NAME ARGS` and `pytest ARGS` as
    `module NAME ARGS`, `python SCRIPT ARGS` as `path SCRIPT ARGS`; None for anything else
    (a shell script, `make test`, an interpreter's own options)."""
    if command[:1] == ["pytest"]:
        return ["module", "pytest", *command[1:]]
    if not command or command[0] not in _INTERPRETERS or len(command) < 2:
        return None
    if command[1] == "-m" and len(command) > 2:
        return ["module", *command[2:]]
    return None if command[1].startswith("-") else ["path", *command[1:]]


def parse_unittest(output: str) -> dict[str, int | list[str]] | None:
    """Counts and failing ids from unittest's report (None: none in `output`)."""
    ran = _RAN.findall(output)
    end = _UNITTEST_END.findall(output)
    if not ran or not end:
        return None
    detail = dict((k.strip(), int(v)) for k, v in re.findall(r"(\w+)=(\d+)", end[-1][1] or ""))
    failed, errors = detail.get("failures", 0), detail.get("errors", 0)
    skipped = detail.get("skipped", 0)
    failing = []
    for name, where in _UNITTEST_FAILING.findall(output):
        failing.append(where if where.endswith(f".{name}") else f"{where}.{name}")
    return {
        "passed": int(ran[-1]) - failed - errors - skipped,
        "failed": failed,
        "errors": errors,
        "skipped": skipped,
        "failing": list(dict.fromkeys(failing)),
    }


def reported(output: str) -> dict[str, int | list[str]]:
    """What a test run reported: pytest's summary line, else unittest's, else nothing."""
    pytest = parse_pytest(output)
    if any(pytest[k] for k in ("passed", "failed", "errors", "skipped")):
        return pytest
    return parse_unittest(output) or pytest  # unittest's `FAILED (failures=1)` is no id


def failures_so_far(output: str) -> bool:
    """A run stopped before its summary already showed a failing test (pytest's `F` or
    `E` progress marks, or unittest's `FAIL:`/`ERROR:` blocks)."""
    marks = "".join(m.split("[")[0] for m in _PROGRESS.findall(output))
    return "F" in marks or "E" in marks or bool(_UNITTEST_FAILING.search(output))


def run_tests(
    ctx: ToolContext, command: list[str], timeout_s: float, shown: str, program: Path | None
) -> PytestSummary:
    """Run a test command in the workspace (asking first where a run's program would) and
    read its report; its exit code decides whether the tests passed."""
    ctx.approve_run(f"run `{shown}`", program)
    result: ProcessResult = ctx.run(command, timeout_s)
    output = result.stdout + result.stderr
    return PytestSummary(
        **reported(output),  # type: ignore[arg-type]
        exit_code=result.exit_code,
        stopped=stopped_reason(ctx, result, timeout_s),
        output_tail=output[-TAIL_CHARS:],
        timed_out=result.timed_out,
    )


def program_of(ctx: ToolContext, command: list[str]) -> Path | None:
    """The workspace file a command runs (a script, or the one a Python runs), if any:
    one created in this run needs the user's yes (ToolContext.approve_run)."""
    args = command[1:] if command[:1] and command[0] in _INTERPRETERS else command
    if not args or args[0].startswith("-"):
        return None
    try:
        path = ctx.ws.resolve(args[0])
    except WorkspaceError:  # a program outside the folder (`make`, `/usr/bin/tox`)
        return None
    return path if path.is_file() else None
