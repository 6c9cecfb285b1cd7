"""Judging a working copy by running the challenge's own entry command (never the agent's
word) and by what the run changed outside the editable files; and `codur challenges
check`: the bug shows, the reference fix passes and changes only editable files.

The entry command runs in a fresh copy of the challenge with the run's changes to every
file but the oracle (unless `editable` names it): a conftest.py, a pytest.ini or a plugin
the run planted (or a test it weakened) is a violation, and never part of what the
command runs."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codur.challenges.scope import EditScope, oracle, scope_for
from codur.challenges.snapshot import Snapshot, snapshot, violations
from codur.challenges.spec import Challenge
from codur.process import run_process
from codur.project.interpreter import locate
from codur.verify.check import normalize

OUTPUT_LIMIT = 1_000_000


def judged_copy(challenge: Challenge, work: Path, dest: Path, scope: EditScope) -> Path:
    """The challenge as the agent saw it, in `dest`, with `work`'s version (created,
    changed or deleted) of every file but the oracle, unless `scope` lets a run change it."""
    copy = challenge.copy_to(dest)
    guarded = EditScope(None, oracle(challenge), ())
    for path in sorted(set(snapshot(work, scope)) | set(snapshot(copy, scope))):
        if not (scope.may_change(path) or guarded.may_change(path)):
            continue  # the oracle: as the challenge has it
        source, target = work / path, copy / path
        target.unlink(missing_ok=True)
        if source.is_symlink() or source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
    return copy


def passes(challenge: Challenge, work: Path, scope: EditScope | None = None) -> bool:
    """Does the program in `work` do what the challenge expects? It runs in a judged copy
    (`judged_copy`) with the challenge's hidden `judge/` folder added (so `entry` may run
    a check the agent never saw), with the project's Python of `work` (`codur.project`),
    without the user's site-packages; the expected output is read from the challenge
    folder, never from the working copy."""
    scope = scope or scope_for(challenge)
    with tempfile.TemporaryDirectory(prefix="codur-judge-") as tmp:
        copy = judged_copy(challenge, work, Path(tmp), scope)
        challenge.add_judge(copy)
        result = run_process(
            challenge.command(locate(work, None).path),
            copy,
            challenge.spec.timeout_s,
            OUTPUT_LIMIT,
            env={"PYTHONNOUSERSITE": "1"},
        )
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
    return Judgement(passes(challenge, work, scope), tuple(changed))


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
        everything = EditScope(None, (), ())  # the reference fix as it is, whatever it changes
        return CheckResult(
            challenge.name,
            buggy_fails=not passes(challenge, buggy),
            solution_passes=passes(challenge, fixed, everything),
            solution_violations=tuple(
                violations(snapshot(buggy, scope), snapshot(fixed, scope), scope)
            ),
        )
