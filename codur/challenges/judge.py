"""Judging a working copy by running the challenge's own entry command (never the agent's
word), and `codur challenges check`: the bug shows, and the reference fix passes."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from codur.challenges.spec import Challenge
from codur.verify.check import normalize
from codur.verify.process import run_process

OUTPUT_LIMIT = 1_000_000


def passes(challenge: Challenge, work: Path) -> bool:
    """Does the program in `work` do what the challenge expects?"""
    result = run_process(challenge.command(), work, challenge.spec.timeout_s, OUTPUT_LIMIT)
    if challenge.spec.expected is None:
        return result.ok
    expected = (challenge.folder / challenge.spec.expected).read_text(encoding="utf-8")
    return result.ok and normalize(result.stdout) == normalize(expected)


@dataclass(frozen=True)
class CheckResult:
    name: str
    buggy_fails: bool
    solution_passes: bool

    @property
    def ok(self) -> bool:
        return self.buggy_fails and self.solution_passes


def check(challenge: Challenge) -> CheckResult:
    with tempfile.TemporaryDirectory(prefix="codur-check-") as tmp:
        buggy = challenge.copy_to(Path(tmp) / "buggy")
        fixed = challenge.copy_to(Path(tmp) / "fixed", with_solution=True)
        return CheckResult(challenge.name, not passes(challenge, buggy), passes(challenge, fixed))
