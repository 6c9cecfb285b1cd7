"""All the runs of `codur challenges run`: each challenge with each seed, here (`--jobs`
at a time) or on Ray (`--ray`), the runs already in the journal skipped, the outcomes
journalled and reported as they finish, the reports written at the end."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codur.challenges.journal import Journal, RunKey
from codur.challenges.on_ray import RayOptions, RayTally, run_on_ray
from codur.challenges.outcome import JudgedRun
from codur.challenges.report import write_reports
from codur.challenges.runner import RunSettings, run_challenge
from codur.challenges.spec import Challenge


def run_all(
    challenges: list[Challenge],
    out: Path,
    settings: RunSettings,
    jobs: int | None,
    on_done: Callable[[JudgedRun], None] = lambda o: None,
    ray: RayOptions | None = None,
) -> tuple[list[JudgedRun], RayTally | None]:
    """Every challenge with every seed, `jobs` runs at a time (None: 1 here, as many as
    the cluster holds on Ray); writes the reports to `out`. Runs already in
    out/runs.jsonl (same settings) are not made again. Interrupted on Ray, the runs not
    finished are cancelled and the reports say what did finish."""
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    journal = Journal(out, settings.recorded())
    finished: dict[RunKey, JudgedRun] = journal.finished()
    runs = [(c, seed) for c in challenges for seed in settings.seeds]
    for challenge, seed in runs:
        if (challenge.name, seed) in finished:
            on_done(finished[(challenge.name, seed)])
    pending = [(c, seed) for c, seed in runs if (c.name, seed) not in finished]

    def record(outcome: JudgedRun, journalled: bool = True) -> None:
        if journalled:
            journal.add(outcome)
        finished[(outcome.name, outcome.seed)] = outcome
        on_done(outcome)

    def reports(tally: RayTally | None) -> list[JudgedRun]:
        outcomes = [finished[(c.name, s)] for c, s in runs if (c.name, s) in finished]
        write_reports(outcomes, out, tally)
        return outcomes

    if ray is None:
        with ThreadPoolExecutor(max_workers=max(jobs or 1, 1)) as pool:
            list(pool.map(lambda r: record(run_challenge(r[0], settings, r[1], logs)), pending))
        return reports(None), None
    tally = RayTally(cluster="", placement=ray.placement.text)
    try:
        run_on_ray(pending, settings, logs, jobs, ray, record, tally)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM (Interrupted): keep what finished
        tally.interrupted = True
        tally.not_run = sum((c.name, s) not in finished for c, s in runs)
        reports(tally)
        raise
    return reports(tally), tally
