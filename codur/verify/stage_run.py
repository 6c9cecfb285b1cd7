"""One stage of the project's tests as it ran (`Ran`), what it proves of the tests that
failed earlier (`proven`), and its `verify.run` event."""

from __future__ import annotations

import dataclasses
import re
import shlex
from dataclasses import dataclass

from codur.tools.context import ToolContext
from codur.tools.python import PytestSummary


@dataclass(frozen=True)
class Ran:
    """One stage's run: what ran (as shown), how it went, or why it could not run."""

    stage: str
    shown: str
    summary: PytestSummary | None
    duration_s: float
    error: str = ""
    cut: bool = False
    """Stopped at the suite budget."""
    unproven: str = ""
    """Why the tests that failed earlier are not shown to pass though the run passed (one
    was skipped, or fewer passed than were run)."""


def proven(ran: Ran, ids: list[str], runner: str) -> Ran:
    """The tests that failed earlier, run again: each must pass, not be skipped (a
    skip raised by the code under test, or a test turned into an expected failure,
    is no fix). pytest lists the ids that passed (other tests its configuration adds,
    or that a `-k` of the names matches too, do not count); unittest's patterns match
    those tests alone, so its counts tell."""
    summary = ran.summary
    if summary is None or not summary.ok or ran.error:
        return ran
    first = sorted(set(ids))
    if summary.passing:  # pytest's list of what passed
        missing = [i for i in first if not any(_names(i, p) for p in summary.passing)]
        if not missing:
            return ran
        why = f"{len(missing)} of the tests the task names or that failed earlier did not pass"
        why += f" ({', '.join(missing[:3])})"
    elif not (summary.passed or summary.skipped):
        return ran  # no report to read: its exit code and the whole suite judge
    elif summary.skipped and runner != "command":
        why = f"{summary.skipped} of the tests the task names or that failed earlier skipped"
    elif summary.passed < len(first):
        why = f"{summary.passed} of the {len(first)} tests the task names or that failed passed"
    else:
        return ran
    return dataclasses.replace(ran, unproven=f"{why}: deselected, skipped or xfailed is no pass")


def _names(wanted: str, passed: str) -> bool:
    """Whether the id `wanted` names the passed test `passed`: itself, or the class or the
    parametrized test holding it (`t.py::test_total` names `t.py::test_total[1]`)."""
    return passed == wanted or passed.startswith((f"{wanted}::", f"{wanted}["))


def not_found(error: str, ids: list[str]) -> list[str]:
    """The ids pytest said it could not find (`ERROR: not found: /abs/path::name`, the
    name without its parameters)."""
    missing = [m.strip() for m in re.findall(r"^ERROR: not found: (.+)$", error, re.M)]
    return [i for i in ids if any(m.endswith(i.split("[")[0]) for m in missing)]


def emit(ctx: ToolContext, ran: Ran) -> None:
    """One `verify.run` event a stage: which stage, what ran, how it went."""
    summary = ran.summary
    ctx.bus.emit(
        "verify.run",
        stage=ran.stage,
        command=shlex.split(ran.shown),
        exit_code=summary.exit_code if summary else None,
        passed=bool(summary and summary.ok and not ran.error and not ran.unproven),
        timed_out=bool(summary and summary.timed_out),
        cut=ran.cut,
        failing=summary.failing if summary else [],
        stdout=summary.output_tail if summary else ran.error,
        duration_s=round(ran.duration_s, 3),
    )
