"""What one judged run of a challenge came to, and the figures over many runs (per seed,
with every seed, with at least one)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from codur.verify.strength import LEVELS, PASSED

UNRECORDED = "unrecorded"
"""The evidence level of a pass in a journal written before levels were recorded."""
LOST = "lost"
"""The status of a run the runner lost, not Codur (--ray: its worker died more times than
Ray retries, or the task raised); not journalled, so running again makes it."""


@dataclass
class JudgedRun:
    """One run of a challenge (one seed) as the runner judged it."""

    name: str
    passed: bool
    """Judged by the runner, not by Codur's own verdict: the challenge's entry command
    succeeded (with the challenge's own expected output) and no protected file changed."""
    status: str
    exit_code: int | None
    attempts: int
    wall_s: float
    seed: int | None = None
    """The model seed this run was given (`--seeds`); None: the profile's own."""
    output_ok: bool = False
    """The entry command alone succeeded, whatever else the run changed."""
    violations: list[str] = field(default_factory=list)
    """Files outside the editable ones that the run modified, deleted or created."""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    iterations: int = 0
    diff: str = ""
    log: str = ""
    error: str = ""
    retries: int = 0
    """--ray: times the run was started again because the process running it died."""
    evidence: str = ""
    """A run Codur passed (verified, checked): the level of its evidence (project, task,
    docstring, model; run.end's `evidence`); empty otherwise, or in a journal written
    before it was recorded."""

    @property
    def claimed(self) -> bool:
        """Codur said its checks passed (verified or checked), whatever the judge says."""
        return self.status in PASSED

    @property
    def result(self) -> str:
        """pass, FAIL, FAIL (protected) when the run changed a protected file, or LOST
        when the runner lost it (status `lost`)."""
        if self.passed:
            return "pass"
        if self.status == LOST:
            return "LOST"
        return "FAIL (protected)" if self.violations else "FAIL"


def seed_label(seed: int | None) -> str:
    return "-" if seed is None else str(seed)


@dataclass(frozen=True)
class Summary:
    passed: int
    """Runs that passed (a run is one challenge with one seed)."""
    total: int
    """Runs."""
    challenges: int
    seeds: list[int | None]
    per_seed: dict[str, int]
    """Seed (as text; `-` for the profile's own) -> challenges passed with it."""
    passed_every_seed: int
    """Challenges that passed with every seed."""
    passed_any_seed: int
    """Challenges that passed with at least one seed."""
    protected: int
    """Runs that changed a protected file."""
    wall_s_total: float
    wall_s_median: float
    model_calls: int
    by_evidence: dict[str, dict[str, int]] = field(default_factory=dict)
    """Runs Codur passed (verified, checked) by the level of their evidence (`unrecorded`:
    a journal without it) -> {"runs", "judge_failed"}: the false-pass rate per level."""
    false_passes: int = 0
    """Runs Codur passed (verified, checked) that the judge failed."""


def by_evidence(passes: Iterable[tuple[str, bool]]) -> dict[str, dict[str, int]]:
    """(evidence level, the judge passed it) of each run Codur passed -> per level,
    strongest first (`unrecorded` last): {"runs", "judge_failed"}."""
    found: dict[str, dict[str, int]] = {}
    for level, judged in passes:
        counts = found.setdefault(level or UNRECORDED, {"runs": 0, "judge_failed": 0})
        counts["runs"] += 1
        counts["judge_failed"] += not judged
    rank = {level: n for n, level in enumerate([*LEVELS, UNRECORDED])}
    return {k: found[k] for k in sorted(found, key=lambda k: rank.get(k, len(rank)))}


def seeds_passed(outcomes: list[JudgedRun]) -> dict[str, list[int | None]]:
    """Challenge -> the seeds it passed with, in challenge order."""
    passed: dict[str, list[int | None]] = {}
    for o in outcomes:
        passed.setdefault(o.name, [])
        if o.passed:
            passed[o.name].append(o.seed)
    return passed


def summarize(outcomes: list[JudgedRun]) -> Summary:
    seeds = list(dict.fromkeys(o.seed for o in outcomes))
    by_challenge = seeds_passed(outcomes)
    runs_of = {name: sum(o.name == name for o in outcomes) for name in by_challenge}
    walls = sorted(o.wall_s for o in outcomes)
    return Summary(
        passed=sum(o.passed for o in outcomes),
        total=len(outcomes),
        challenges=len(by_challenge),
        seeds=seeds,
        per_seed={seed_label(s): sum(o.passed for o in outcomes if o.seed == s) for s in seeds},
        passed_every_seed=sum(len(ok) == runs_of[name] for name, ok in by_challenge.items()),
        passed_any_seed=sum(bool(ok) for ok in by_challenge.values()),
        protected=sum(bool(o.violations) for o in outcomes),
        wall_s_total=round(sum(walls), 2),
        wall_s_median=walls[len(walls) // 2] if walls else 0,
        model_calls=sum(o.model_calls for o in outcomes),
        by_evidence=by_evidence((o.evidence, o.passed) for o in outcomes if o.claimed),
        false_passes=sum(o.claimed and not o.passed for o in outcomes),
    )
