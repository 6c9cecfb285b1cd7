"""Search tools: find files by name or glob; grep contents with ripgrep or pure Python.

Both skip what .gitignore and `tools.ignore` skip, and never look inside secrets files
unless config allows it.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.fs import SNIFF, capped
from codur.tools.registry import TaskType, register_tool
from codur.tools.walk import walk

MAX_LINE = 300
"""Characters of a matching line shown in grep results."""


def _name_matcher(pattern: str) -> tuple[bool, str]:
    """(match on the relative path?, lowercased glob) for a name pattern or plain text."""
    pat = pattern.lower()
    if not any(ch in pat for ch in "*?["):
        pat = f"*{pat}*"
    return "/" in pat.strip("*"), pat


@register_tool(TaskType.SEARCH, TaskType.EXPLANATION)
def search_files(ctx: Ctx, pattern: str, path: str = ".") -> list[str]:
    """Find files and folders by name: a glob (`*.py`, `tests/*_test.py`) or plain text.

    Plain text matches any part of a name, ignoring case.

    Args:
        pattern: Glob or text to look for in names.
        path: Folder to search, relative to the workspace root.
    """
    on_path, pat = _name_matcher(pattern)
    start = ctx.path(path)
    if not start.is_dir():
        raise ToolError(f"{path} is not a folder")
    hits = (
        e.rel + ("/" if e.is_dir else "")
        for e in walk(ctx, start)
        if fnmatch.fnmatchcase((e.rel if on_path else e.path.name).lower(), pat)
    )
    return capped(ctx, hits)


@dataclass(frozen=True)
class GrepResult:
    """Matching lines as `path:line: text`, and how the search went."""

    matches: list[str]
    engine: str
    note: str = ""

    def __str__(self) -> str:
        text = "\n".join(self.matches) if self.matches else "(no matches)"
        return f"{text}\n[{self.note}]" if self.note else text


def ripgrep_binary() -> str | None:
    """The `rg` of the installed ripgrep package (next to this Python), else one on PATH."""
    beside = Path(sysconfig.get_path("scripts")) / "rg"
    return str(beside) if beside.is_file() else shutil.which("rg")


@register_tool(TaskType.SEARCH, TaskType.EXPLANATION)
def grep_files(
    ctx: Ctx, pattern: str, path: str = ".", glob: str | None = None, ignore_case: bool = False
) -> GrepResult:
    """Search file contents for a regular expression; lists `path:line: text`.

    Args:
        pattern: Regular expression (ripgrep / Python syntax).
        path: Folder or file to search, relative to the workspace root.
        glob: Only search files whose name matches this glob (e.g. `*.py`).
        ignore_case: Match regardless of case.
    """
    target = ctx.path(path)
    if not target.exists():
        raise ToolError(f"no such file or folder: {path}")
    backend = ctx.config.grep_backend
    rg = ripgrep_binary() if backend != "python" else None
    if backend == "ripgrep" and rg is None:
        raise ToolError("ripgrep (rg) is not installed; set tools.grep_backend: python")
    if rg is not None:
        result = grep_ripgrep(ctx, rg, pattern, target, glob, ignore_case)
        if result is not None:
            return result
    return grep_python(ctx, pattern, target, glob, ignore_case)


def _excluded_globs(ctx: ToolContext) -> list[str]:
    names = list(ctx.config.ignore)
    if not ctx.config.allow_secrets:
        names += ctx.config.secret_patterns
    return [f"--glob=!{n}" for n in names]


def grep_ripgrep(
    ctx: ToolContext, rg: str, pattern: str, target: Path, glob: str | None, ignore_case: bool
) -> GrepResult | None:
    """Search with ripgrep; None when its regex dialect rejects `pattern` (use Python's)."""
    limit = ctx.config.grep_max_matches
    rel = ctx.rel(target)
    command = [
        rg, "--no-config", "--null", "--line-number", "--no-heading", "--with-filename",
        "--color=never", "--hidden", "--no-require-git", "--no-ignore-global",
        "--no-ignore-dot", "--no-ignore-exclude", f"--max-count={limit + 1}",
        "--ignore-case" if ignore_case else "--case-sensitive",
        *_excluded_globs(ctx), *([f"--iglob={glob}"] if glob else []),
        "--regexp", pattern, "--", rel,
    ]  # fmt: skip
    run = ctx.run(command, ctx.config.grep_timeout_s)
    if run.exit_code == 2 and not run.stdout:
        if "regex parse error" in run.stderr or "error parsing regex" in run.stderr:
            return None
        raise ToolError(f"grep failed: {run.stderr.strip()[:500]}")
    found = []
    for line in run.stdout.splitlines():
        name, sep, rest = line.partition("\0")
        number, _, text = rest.partition(":")
        if sep and number.isdigit():
            found.append((name.removeprefix("./"), int(number), text[:MAX_LINE]))
    matches = [f"{name}:{number}: {text}" for name, number, text in sorted(found)]
    note = _note(ctx, len(matches) > limit, run.timed_out, run.truncated)
    return GrepResult(matches[:limit], "ripgrep", note)


def _note(ctx: ToolContext, over: bool, timed_out: bool, flooded: bool = False) -> str:
    if timed_out:
        return f"search stopped after {ctx.config.grep_timeout_s} s; results are partial"
    if over or flooded:
        return f"more than {ctx.config.grep_max_matches} matches; narrow the pattern or path"
    return ""


def grep_python(
    ctx: ToolContext, pattern: str, target: Path, glob: str | None, ignore_case: bool
) -> GrepResult:
    """The pure-Python search: same rules as the ripgrep one, slower."""
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from None
    limit = ctx.config.grep_max_matches
    deadline = time.monotonic() + ctx.config.grep_timeout_s
    pat = (glob or "").lower()
    on_path = "/" in pat
    if target.is_dir():
        files = (e for e in walk(ctx, target) if not e.is_dir and not e.path.is_symlink())
        paths = ((e.path, e.rel) for e in files)
    else:
        paths = iter([(target, ctx.rel(target))])
    matches: list[str] = []
    for file, rel in paths:
        if time.monotonic() > deadline:
            return GrepResult(matches, "python", _note(ctx, False, True))
        if pat and not fnmatch.fnmatchcase((rel if on_path else file.name).lower(), pat):
            continue
        if not ctx.config.allow_secrets and ctx.is_secret(Path(rel)):
            continue
        if not file.is_file():
            continue  # a FIFO would block the read; sockets and devices hold no text
        try:
            data = file.read_bytes()
        except OSError:
            continue  # unreadable file: ripgrep skips these too
        if b"\0" in data[:SNIFF]:
            continue
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if regex.search(line):
                matches.append(f"{rel}:{number}: {line[:MAX_LINE]}")
                if len(matches) > limit:
                    return GrepResult(matches[:limit], "python", _note(ctx, True, False))
    return GrepResult(matches, "python")
