"""Judging a working copy by running the challenge's own entry command (never the agent's
word) and by what the run changed outside the editable files; and `codur challenges
check`: the bug shows, the reference fix passes and changes only editable files."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from codur.challenges.scope import EditScope, scope_for
from codur.challenges.snapshot import Snapshot, snapshot, violations
from codur.challenges.spec import Challenge
from codur.process import run_process
from codur.verify.check import normalize

OUTPUT_LIMIT = 1_000_000


def passes(challenge: Challenge, work: Path) -> bool:
    """Does the program in `work` do what the challenge expects? The challenge's hidden
    `judge/` folder is copied in first (so `entry` may run a check the agent never saw);
    the expected output is read from the challenge folder, never from the working copy."""
    challenge.add_judge(work)
    result = run_process(challenge.command(), work, challenge.spec.timeout_s, OUTPUT_LIMIT)
    if challenge.spec.expected is None:
        return result.ok
    expected = (challenge.folder / challenge.spec.expected).read_text(encoding="utf-8")
    return result.ok and normalize(result.stdout) == normalize(expected)


@dataclass(frozen=True)
class Judgement:
    output_ok: bool
    """The entry command succeeded (with the challenge's own expected output)."""
    violations: tuple[str, ...]
    """Files outside the editable ones that were modified, deleted or created."""

    @property
    def passed(self) -> bool:
        return self.output_ok and not self.violations


def judge(challenge: Challenge, work: Path, before: Snapshot, scope: EditScope) -> Judgement:
    """`work` after a run, against its `before` snapshot: what changed outside `scope` is
    taken first, then the entry command runs (its own files don't count)."""
    changed = violations(before, snapshot(work, scope), scope)
    return Judgement(passes(challenge, work), tuple(changed))


@dataclass(frozen=True)
class CheckResult:
    name: str
    buggy_fails: bool
    solution_passes: bool
    solution_violations: tuple[str, ...]
    """Files outside the edit scope that the reference fix changes (an unsound challenge)."""

    @property
    def ok(self) -> bool:
        return self.buggy_fails and self.solution_passes and not self.solution_violations


def check(challenge: Challenge) -> CheckResult:
    scope = scope_for(challenge)
    with tempfile.TemporaryDirectory(prefix="codur-check-") as tmp:
        buggy = challenge.copy_to(Path(tmp) / "buggy")
        fixed = challenge.copy_to(Path(tmp) / "fixed", with_solution=True)
        solution = judge(challenge, fixed, snapshot(buggy, scope), scope)
        return CheckResult(
            challenge.name,
            buggy_fails=not passes(challenge, buggy),
            solution_passes=solution.output_ok,
            solution_violations=solution.violations,
        )
