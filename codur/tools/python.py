"""Python tools that run things: a program, the tests, and finding what can be run.

Programs run through `ToolContext.run` (the run's sandbox, the timeout, output cap and
memory cap from the tools config); a program that hangs or floods is stopped and
reported as a result.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from codur.litter import temp_prefix
from codur.process import ProcessResult
from codur.tools import passes as recorder
from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.fs import capped, existing_file
from codur.tools.registry import TaskType, register_tool
from codur.tools.walk import walk

TAIL_CHARS = 4000
"""pytest output kept in a summary (its end, where the failures are)."""


def _run(
    ctx: ToolContext,
    command: list[str],
    timeout_s: float,
    stdin: str | None = None,
    *,
    action: str,
    program: Path | None = None,
    keep: Path | None = None,
    env: dict[str, str] | None = None,
) -> ProcessResult:
    """Run `command` in the workspace once the approval gate agrees to `action`; `keep`:
    a folder outside it the program may write (its records); `env`: its environment
    besides Codur's."""
    ctx.approve_run(action, program)
    writable = [keep] if keep else None
    return ctx.run(command, timeout_s, stdin=stdin, env=env, writable=writable)


def stopped_reason(ctx: ToolContext, run: ProcessResult, timeout_s: float) -> str:
    """Why a program was stopped (timeout, output cap), or "" if it ended by itself."""
    if run.timed_out:
        return f"stopped after {timeout_s:g} s (timeout)"
    if run.truncated:
        return f"stopped: output passed {ctx.config.output_limit_bytes} bytes"
    if run.stopped_at_line is not None:
        return f"stopped at output line {run.stopped_at_line} (it cannot match)"
    return ""


@dataclass(frozen=True)
class RunReport:
    """How a program run went: exit code (None if stopped), output, and why it stopped."""

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    duration_s: float
    stopped: str = ""
    """Why it was stopped, for people (empty: it ended by itself)."""
    timed_out: bool = False
    truncated: bool = False
    """Its output went past the cap and it was stopped."""
    stopped_at_line: int | None = None
    """The stdout line an output check stopped it at (`ToolContext.stop_output`)."""
    raw_stdout: str = field(repr=False, kw_only=True)
    raw_stderr: str = field(repr=False, kw_only=True)
    """Its output as printed (`stdout`/`stderr` are masked), for a check; never shown."""

    def __str__(self) -> str:
        status = self.stopped or f"exit code {self.exit_code}"
        parts = [f"$ {self.command}", f"[{status}, {self.duration_s:.2f} s]"]
        parts += ["--- stdout ---", self.stdout.rstrip("\n")] if self.stdout else []
        parts += ["--- stderr ---", self.stderr.rstrip("\n")] if self.stderr else []
        return "\n".join(parts)


@register_tool(TaskType.CODE_VALIDATION)
def run_python_file(
    ctx: Ctx, path: str, arguments: list[str] | None = None, stdin: str | None = None
) -> RunReport:
    """Run a Python file from the workspace root; returns its exit code and output.

    Args:
        path: The .py file, relative to the workspace root.
        arguments: Command-line arguments for the program.
        stdin: Text to send to its standard input.
    """
    target = existing_file(ctx, path)
    rel = ctx.rel(target)
    timeout = ctx.config.run_timeout_s
    shown = " ".join(["python", rel, *(arguments or [])])
    command = [ctx.python, rel, *(arguments or [])]
    run = _run(ctx, command, timeout, stdin, action=f"run `{shown}`", program=target)
    stopped = stopped_reason(ctx, run, timeout)
    return RunReport(
        shown,
        run.exit_code,
        run.stdout,
        run.stderr,
        run.duration_s,
        stopped,
        timed_out=run.timed_out,
        truncated=run.truncated,
        stopped_at_line=run.stopped_at_line,
        raw_stdout=run.raw_stdout,
        raw_stderr=run.raw_stderr,
    )


@dataclass(frozen=True)
class PytestSummary:
    """The counts pytest reported, the failing test ids, and the end of its output."""

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    failing: list[str] = field(default_factory=list)
    passing: list[str] = field(default_factory=list)
    """Ids of the tests that passed, where the run listed them (`run_pytest(passes=True)`)."""
    recorded: list[dict] | None = None
    """The tests that passed, as the run recorded them (`run_pytest(record=True)`:
    `codur.tools.passes.passed`); None: not recorded."""
    exit_code: int | None = None
    stopped: str = ""
    """Why pytest was stopped, for people (empty: it ended by itself)."""
    output_tail: str = ""
    timed_out: bool = False
    interrupted: bool = False
    """pytest said it was stopped (`pytest.exit()`, an interrupt) before its end."""

    @property
    def ok(self) -> bool:
        """All it ran passed: exit code 0, and no failure, error or stop reported (a
        conftest's `os._exit(0)` or `pytest.exit(returncode=0)` after a failure exits 0)."""
        clean = not (self.failed or self.errors or self.failing or self.interrupted)
        return self.exit_code == 0 and clean

    def __str__(self) -> str:
        counts = f"{self.passed} passed, {self.failed} failed, {self.errors} errors"
        status = self.stopped or f"exit code {self.exit_code}"
        lines = [f"pytest: {counts}, {self.skipped} skipped ({status})"]
        if self.failing:
            lines += ["Failing:", *(f"- {t}" for t in self.failing)]
        return "\n".join([*lines, "--- output (end) ---", self.output_tail])


_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped)\b")
_FAILING = re.compile(r"^(FAILED|ERROR) (\S+?(?:\[.*?\])?)(?: - .*)?$", re.MULTILINE)
_PASSING = re.compile(r"^PASSED (.+)$", re.MULTILINE)
_STOPPED = re.compile(r"^!{3,} .*\b(?:Exit|Interrupted|KeyboardInterrupt)\b", re.MULTILINE)
"""pytest's banner for a run stopped early (`!!! _pytest.outcomes.Exit: ... !!!`)."""
"""A short test summary line: the test's id (its parameters may hold spaces and ` - `:
`test_x[5 - 2]`), then ` - ` and the message, if any (a pass has none)."""


_SHORT_SUMMARY = re.compile(r"^=+ short test summary info =+$", re.MULTILINE)
_COUNTS_LINE = re.compile(r"^=+ .*\bin [\d.]+s\b.*=+$", re.MULTILINE)


def _short_summary(output: str) -> str:
    """pytest's short test summaries (the ids `-rfEp` lists), each from its banner to the
    counts line that ends it: a test that prints `FAILED x - msg` (under `-s`, or to
    stderr after the report) lists nothing; a command running pytest twice lists both."""
    sections = []
    for banner in _SHORT_SUMMARY.finditer(output):
        end = _COUNTS_LINE.search(output, banner.end())
        sections.append(output[banner.end() : end.start() if end else len(output)])
    return "\n".join(sections)


def parse_pytest(output: str) -> dict[str, int | bool | list[str]]:
    """Counts from pytest's last summary line, ids from its short test summary, and
    whether it said it was stopped early."""
    output = output.replace("\r\n", "\n")
    counts: dict[str, int | bool | list[str]] = {
        "passed": 0,
        "failed": 0,
        "errors": 0,
        "skipped": 0,
    }
    summary = [ln for ln in output.splitlines() if re.search(r"\bin [\d.]+s\b", ln)]
    for number, word in _COUNT.findall(summary[-1] if summary else ""):
        counts["errors" if word.startswith("error") else word] = int(number)
    listed = _short_summary(output)
    counts["failing"] = list(dict.fromkeys(m[1] for m in _FAILING.findall(listed)))
    counts["passing"] = list(dict.fromkeys(_PASSING.findall(listed)))
    counts["interrupted"] = _STOPPED.search(output) is not None
    return counts


@register_tool(TaskType.CODE_VALIDATION)
def run_pytest(
    ctx: Ctx,
    path: str | list[str] = ".",
    keyword: str | None = None,
    passes: bool = False,
    record: bool = False,
) -> PytestSummary:
    """Run the tests with pytest; returns pass/fail counts and the failing test ids.

    Args:
        path: Test file or folder, or a test's id (`file::name`), or a list of them,
            relative to the workspace root.
        keyword: Only run tests matching this pytest -k expression.
        passes: Also list the ids of the tests that passed (for a few tests).
        record: Also record the tests that passed, where they are written (a whole suite).
    """
    rels = []
    for one in [path] if isinstance(path, str) else path:
        file, sep, test = one.partition("::")
        target = ctx.path(file)
        if not target.exists():
            raise ToolError(f"no such file or folder: {file}")
        rels.append(ctx.rel(target) + sep + test)
    command = [ctx.python, "-m", "pytest", *PYTEST_FLAGS, *(["-rfEp"] if passes else [])]
    command += [*rels, *(["-k", keyword] if keyword else [])]
    timeout = ctx.config.pytest_timeout_s
    action = f"run `pytest {' '.join(rels)}`"
    if not record:
        return summarize_pytest(ctx, _run(ctx, command, timeout, action=action), timeout)
    with tempfile.TemporaryDirectory(prefix=temp_prefix("passes")) as name:
        folder = Path(name)
        inherited = ctx.program_env.get("PYTHONPATH") or os.environ.get("PYTHONPATH", "")
        flags, env = recorder.prepare(folder, inherited)
        run = _run(ctx, [*command, *flags], timeout, action=action, keep=folder, env=env)
        listed = recorder.passed(folder)
        if listed is None and run.exit_code in (3, 4):  # the plugin did not load
            run = _run(ctx, [*command, "-rfEp"], timeout, action=action)
        summary = summarize_pytest(ctx, run, timeout)
    return dataclasses.replace(summary, recorded=listed)


PYTEST_FLAGS = ("--verbosity=-1", "-rfE", "--color=no", "-p", "no:cacheprovider")
"""Quiet, failing ids in a short summary (what `parse_pytest` reads), no cache folder.
The verbosity is set, not lowered: a project's own `-q` in `addopts` or `PYTEST_ADDOPTS`
(which pytest reads before these) and a `-q` here would make pytest drop the counts line."""


def summarize_pytest(ctx: ToolContext, run: ProcessResult, timeout_s: float) -> PytestSummary:
    """A pytest run's counts, failing ids and output tail; ToolError if pytest could not
    run at all (internal or usage error, pytest not installed)."""
    output = run.stdout + run.stderr
    if run.exit_code in (3, 4) or "No module named pytest" in output or broken_pytest(output):
        raise ToolError(f"pytest could not run (exit code {run.exit_code}): {output[-1500:]}")
    return PytestSummary(
        **parse_pytest(run.stdout),  # type: ignore[arg-type]
        exit_code=run.exit_code,
        stopped=stopped_reason(ctx, run, timeout_s),
        output_tail=output[-TAIL_CHARS:],
        timed_out=run.timed_out,
    )


_SUMMARY = re.compile(r"\bin [\d.]+s\b")
"""A line of pytest's results, quiet or not: what `parse_pytest` reads the counts from."""
_PYTEST_IMPORT = re.compile(
    r"Traceback \(most recent call last\):\n(?:  .*\n)*?  File \"[^\"]*[/\\]_?pytest[/\\]"
    r"(?:.*\n)*?(?:ModuleNotFound|Import)Error: (.+)$",
    re.MULTILINE,
)
"""pytest failing to import itself (a dependency of it missing: pluggy, iniconfig): a
traceback through pytest's own package, ending in an import error."""


def broken_pytest(output: str) -> str:
    """What pytest itself could not import, where that is why it did not run (empty:
    it ran, or stopped for another reason)."""
    if _SUMMARY.search(output):  # it got as far as its results ("1 failed in 0.2s")
        return ""
    found = _PYTEST_IMPORT.search(output[-20_000:].replace("\r\n", "\n"))  # its end
    return found.group(1).strip() if found else ""


_MAIN_GUARD = re.compile(r"""^if\s+__name__\s*==\s*['"]__main__['"]\s*:""", re.MULTILINE)
CONVENTIONAL_ENTRY_POINTS = ("main.py", "app.py", "__main__.py", "run.py", "cli.py", "manage.py")
"""Names that make a file a program to run, most likely first: the entry points the
discover_entry_points tool reports, and the one verification runs (the first at the root)."""


@dataclass(frozen=True)
class EntryPoint:
    """A program the project can run: its path and why it counts as one."""

    path: str
    why: str

    def __str__(self) -> str:
        return f"{self.path} ({self.why})"


def entry_points(ctx: ToolContext, start: Path) -> list[EntryPoint]:
    """Files under `start` with a `__main__` guard or a conventional name, most likely
    first (both reasons before one)."""
    found: list[tuple[int, EntryPoint]] = []
    for entry in walk(ctx, start):
        if entry.is_dir or entry.path.suffix != ".py" or not entry.path.is_file():
            continue  # a FIFO named *.py would block the read
        if ctx.is_secret(entry.path):
            continue
        try:
            guarded = bool(_MAIN_GUARD.search(entry.path.read_text("utf-8", "replace")))
        except OSError:
            continue  # unreadable: cannot be an entry point we could run
        conventional = entry.path.name in CONVENTIONAL_ENTRY_POINTS
        if guarded or conventional:
            why = " and ".join(
                w
                for w, on in (("__main__ guard", guarded), ("conventional name", conventional))
                if on
            )
            found.append((-(guarded + conventional), EntryPoint(entry.rel, why)))
    return [point for _, point in sorted(found, key=lambda f: (f[0], str(f[1])))]


@dataclass(frozen=True)
class EntryPoints:
    """What `discover_entry_points` found: the runnable files (typed, for verification)
    and the [project.scripts] entries; it reads as one line each."""

    files: list[EntryPoint]
    lines: list[str]
    """What the model reads: one line each (capped at `tools.max_list_entries`)."""

    def __str__(self) -> str:
        return "\n".join(self.lines) if self.lines else "(none)"


@register_tool(TaskType.CODE_VALIDATION, TaskType.EXPLANATION)
def discover_entry_points(ctx: Ctx, path: str = ".") -> EntryPoints:
    """Find the programs a project can run: files with a `__main__` guard, conventional
    names (main.py, app.py, __main__.py, ...) and [project.scripts] in pyproject.toml.

    Args:
        path: Folder to look in, relative to the workspace root.
    """
    start = ctx.path(path)
    if not start.is_dir():
        raise ToolError(f"{path} is not a folder")
    files = entry_points(ctx, start)
    lines = capped(ctx, [*map(str, files), *_project_scripts(ctx, start)])
    return EntryPoints(files, lines)


def _project_scripts(ctx: ToolContext, start: Path) -> list[str]:
    pyproject = start / "pyproject.toml"
    if sys.version_info < (3, 11) or not pyproject.is_file():
        return []
    import tomllib

    try:
        project = tomllib.loads(pyproject.read_text("utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return []  # a broken pyproject names no scripts we could trust
    rel = ctx.rel(pyproject)
    scripts = project.get("scripts") or {}
    return [
        f"{name} = {target} ({rel} [project.scripts])" for name, target in (scripts or {}).items()
    ]
