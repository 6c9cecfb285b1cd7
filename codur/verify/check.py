"""Run a verification target and judge it; build the structured failure message."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from codur.config.schema import VerifyConfig
from codur.events import EventBus
from codur.resources import prompt
from codur.verify.process import ProcessResult, run_process
from codur.verify.target import Target
from codur.workspace import Workspace


def normalize(text: str) -> str:
    """Output as compared: line endings unified, trailing whitespace per line and at the end
    ignored (editors and `print` disagree on them; the program's meaning does not)."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n")


@dataclass(frozen=True)
class Verdict:
    passed: bool
    target: Target
    result: ProcessResult
    expected: str | None
    diff: str

    @property
    def fingerprint(self) -> str:
        """Identifies 'the same failure' for stuck detection."""
        tail = self.result.stderr.strip().splitlines()[-1:] if self.result.stderr.strip() else []
        return f"{self.result.exit_code}|{normalize(self.result.stdout)}|{''.join(tail)}"


def verify(ws: Workspace, target: Target, cfg: VerifyConfig, bus: EventBus) -> Verdict:
    result = run_process(target.command, ws.root, cfg.timeout_s, cfg.output_limit_bytes)
    expected = ws.read_text(target.expected_file) if target.expected_file else None
    diff = ""
    if expected is None:
        passed = result.ok
    else:
        passed = result.ok and normalize(result.stdout) == normalize(expected)
        if not passed:
            diff = "\n".join(
                difflib.unified_diff(
                    normalize(expected).split("\n"),
                    normalize(result.stdout).split("\n"),
                    "expected",
                    "actual",
                    lineterm="",
                    n=2,
                )
            )
    bus.emit(
        "verify.run",
        command=target.command,
        exit_code=result.exit_code,
        passed=passed,
        timed_out=result.timed_out,
        truncated=result.truncated,
        stdout=result.stdout,
        stderr=result.stderr,
        duration_s=result.duration_s,
    )
    return Verdict(passed, target, result, expected, diff)


def _clip(text: str, max_lines: int) -> str:
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= max_lines:
        return "\n".join(lines)
    return "\n".join([*lines[:max_lines], f"... ({len(lines) - max_lines} more lines)"])


def failure_message(
    ws: Workspace, verdict: Verdict, max_lines: int = 30, include_source: bool = True
) -> str:
    """The seed's structure: Expected / Actual / Error / diff / current implementation
    (the source is left out when the conversation shows the current files anyway)."""
    result = verdict.result
    problems = []
    if result.timed_out:
        problems.append(f"The program was stopped after {result.duration_s:.0f}s (timeout).")
    if result.truncated:
        problems.append("The program printed more output than allowed and was stopped.")
    if result.exit_code not in (0, None):
        problems.append(f"The program exited with code {result.exit_code}.")
    source = ""
    entry = verdict.target.entry
    if include_source and entry.endswith(".py") and ws.resolve(entry).is_file():
        source = prompt("current_source.md").format(
            entry=entry, source=_clip(ws.read_text(entry), 150)
        )
    return prompt("verification_failed.md").format(
        command=verdict.target.describe(),
        problems="\n".join(problems) or "The output does not match the expected output.",
        expected=_clip(verdict.expected, max_lines)
        if verdict.expected is not None
        else "(exit code 0)",
        actual=_clip(result.stdout, max_lines) or "(no output)",
        error=_clip(result.stderr, max_lines) or "(none)",
        diff=verdict.diff or "(no diff)",
        source=source,
    )
