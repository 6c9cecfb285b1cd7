"""Judge a program run against its expected output; build the structured failure message."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from codur.events import EventBus
from codur.process import ProcessResult
from codur.promptbook import PromptBook
from codur.redaction import Redactor
from codur.verify import values
from codur.verify.target import Target


def normalize(text: str) -> str:
    """Output as compared: line endings unified, trailing whitespace per line and at the end
    ignored (editors and `print` disagree on them; the program's meaning does not)."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n")


Match = Literal["exact", "values"]
"""How an output is compared with what is expected: the same text (line endings and
trailing spaces aside), or the stated values in their order, any layout (values.py)."""


@dataclass(frozen=True)
class Verdict:
    passed: bool
    target: Target
    result: ProcessResult
    expected: str | None
    diff: str
    match: Match = "exact"
    shortfall: str = ""
    """Why the output lacks the stated values (a `values` comparison), else empty."""

    @property
    def fingerprint(self) -> str:
        """Identifies 'the same failure' for stuck detection (of a program stopped at an
        output line, not its stderr: how much of it was printed before the stop varies)."""
        stderr = "" if self.result.stopped_at_line is not None else self.result.stderr.strip()
        tail = stderr.splitlines()[-1:]
        return f"{self.result.exit_code}|{normalize(self.result.stdout)}|{''.join(tail)}"


def shown_expected(verdict: Verdict) -> str:
    """The expected output as shown: masked like the program's (`ProcessResult.stdout`)."""
    return Redactor().text(verdict.expected or "")


def judge(
    target: Target, result: ProcessResult, expected: str | None, match: Match = "exact"
) -> Verdict:
    """Passed means exit code 0 and, when there is an expected output, the same stdout as
    printed (`raw_stdout`), or for `values` its values in order; the diff, for people and
    the model, is of the masked texts."""
    if expected is None:
        return Verdict(result.ok, target, result, None, "")
    if match == "values":
        lacking = values.shortfall(expected, result.raw_stdout)
        return Verdict(result.ok and not lacking, target, result, expected, "", match, lacking)
    passed = result.ok and normalize(result.raw_stdout) == normalize(expected)
    diff = ""
    if not passed:
        diff = "\n".join(
            difflib.unified_diff(
                normalize(Redactor().text(expected)).split("\n"),
                normalize(result.stdout).split("\n"),
                "expected",
                "actual",
                lineterm="",
                n=2,
            )
        )
    return Verdict(passed, target, result, expected, diff)


def emit_run(bus: EventBus, verdict: Verdict) -> None:
    result = verdict.result
    bus.emit(
        "verify.run",
        command=result.command,
        exit_code=result.exit_code,
        passed=verdict.passed,
        timed_out=result.timed_out,
        truncated=result.truncated,
        stopped_at_line=result.stopped_at_line,
        stdout=result.stdout,
        stderr=result.stderr,
        duration_s=result.duration_s,
    )


def _clip(text: str, max_lines: int) -> str:
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= max_lines:
        return "\n".join(lines)
    return "\n".join([*lines[:max_lines], f"... ({len(lines) - max_lines} more lines)"])


DIFF_FROM_LINES = 8
"""Outputs longer than this also get a unified diff (short ones are easy to compare)."""


def failure_message(book: PromptBook, verdict: Verdict, max_lines: int = 30) -> str:
    """The report of a failed output check (`book`'s verification_failed prompt): the
    problem, the expected and actual output, the error, and a diff for long outputs (the
    current files are in the conversation already)."""
    result = verdict.result
    problems = [f"Running `{verdict.target.describe()}` failed the check."]
    if result.timed_out:
        problems.append(f"The program was stopped after {result.duration_s:.0f}s (timeout).")
    if result.truncated:
        problems.append("The program printed more output than allowed and was stopped.")
    if result.stopped_at_line is not None:
        problems.append(
            f"The program was stopped at output line {result.stopped_at_line}: no output "
            "that starts with the lines it printed can match the expected output."
        )
    if result.exit_code not in (0, None):
        problems.append(f"The program exited with code {result.exit_code}.")
    if verdict.shortfall:
        problems.append(verdict.shortfall)
    error = diff = ""
    if result.stderr.strip():
        error = book.render("verification_error", error=_clip(result.stderr, max_lines))
    long_output = max(len(result.stdout.splitlines()), len((verdict.expected or "").splitlines()))
    if verdict.diff and long_output > DIFF_FROM_LINES:
        diff = book.render("verification_diff", diff=_clip(verdict.diff, max_lines))
    expected = shown_expected(verdict) if verdict.expected is not None else "(exit code 0)"
    if verdict.match == "values":  # not the exact text: the values it must hold
        expected = values.shown(expected)
    return book.render(
        "verification_failed",
        problems=" ".join(problems),
        expected=_clip(expected, max_lines),
        actual=_clip(result.stdout, max_lines) or "(no output)",
        error=error,
        diff=diff,
    )
