"""`codur challenges run --ray`: each (challenge, seed) is a Ray task that runs and judges
it exactly as a local run does (`run_challenge`: Codur in a subprocess in a temporary
copy, the same judge), on whichever node Ray picks. The challenge's files travel with the
task (packed once per challenge into Ray's object store) and the debug logs come back
with the outcome, so the nodes share no folder with this one. Outcomes reach the journal,
the progress bar and the reports here, in the order the runs finish."""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path

from codur.challenges.outcome import LOST, JudgedRun, seed_label
from codur.challenges.runner import DEFAULT_COMMAND, RunSettings, run_challenge
from codur.challenges.spec import Challenge
from codur.cluster.connect import connected, require_ray
from codur.cluster.jobs import Done, Job, run_jobs
from codur.cluster.placement import Placement
from codur.config.layers import ENV_PREFIX
from codur.litter import temp_prefix

MARGIN_S = 60.0
"""Added to a task's default deadline: copying, hashing, starting Python on the node."""


@dataclass(frozen=True)
class RayOptions:
    address: str | None
    """The cluster to connect to; None: start a local Ray instance."""
    placement: Placement
    task_timeout_s: float | None = None
    """Seconds one task may run (all attempts of one challenge and seed, judging
    included); None: attempts x (--timeout + the challenge's timeout_s) + MARGIN_S."""


@dataclass
class RayTally:
    """What the report says of a run on Ray."""

    cluster: str
    """Where it ran: the address (or `local instance`), nodes and CPUs at the start."""
    placement: str
    """Where the model was served, and what a run reserved."""
    retries: int = 0
    """Runs started again after the process running them died, over all runs."""
    lost: int = 0
    """Runs that ran out of retries or whose task raised (status `lost`)."""
    deadline_timeouts: int = 0
    """Runs cancelled after running past the task deadline (status `timeout`)."""
    interrupted: bool = False
    """Stopped by Ctrl-C or SIGTERM: the runs not finished were cancelled."""
    not_run: int = 0
    """Runs not finished when it was interrupted (made by running again with the same
    --out)."""

    def lines(self) -> list[str]:
        lines = [
            f"Ran on Ray: {self.cluster}; model: {self.placement}.",
            "",
            f"Runs started again after their worker died: {self.retries}; lost: {self.lost}; "
            f"cancelled at the task deadline: {self.deadline_timeouts}.",
        ]
        if self.interrupted:
            lines += ["", f"Interrupted: {self.not_run} run(s) not finished were cancelled."]
        return lines


def pack(folder: Path) -> bytes:
    """The challenge folder as a gzipped tar (everything: the judge needs its hidden files)."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        tar.add(folder, arcname=".")
    return data.getvalue()


def unpack(data: bytes, dest: Path) -> Path:
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(dest, filter="data")
    return dest


def run_remote(
    bundle: bytes, challenge: Challenge, settings: RunSettings, seed: int | None, own: bool
) -> tuple[JudgedRun, dict[str, bytes]]:
    """On a Ray worker: the challenge unpacked from `bundle`, run as a local run would
    (`own`: with this node's own Python, the default command); its outcome and logs."""
    with tempfile.TemporaryDirectory(prefix=temp_prefix("ray")) as tmp:
        root = Path(tmp)
        here = challenge.model_copy(update={"folder": unpack(bundle, root / challenge.name)})
        if own:
            settings = replace(settings, codur_command=DEFAULT_COMMAND)
        logs = root / "logs"
        logs.mkdir()
        outcome = run_challenge(here, settings, seed, logs)
        return outcome, {log.name: log.read_bytes() for log in logs.iterdir()}


def _deadline(challenge: Challenge, settings: RunSettings, options: RayOptions) -> float:
    if options.task_timeout_s is not None:
        return options.task_timeout_s
    return settings.attempts * (settings.timeout_s + challenge.spec.timeout_s) + MARGIN_S


def _outcome(done: Done, logs: Path, tally: RayTally) -> tuple[JudgedRun, bool]:
    """The outcome of a finished task, and whether it goes into the journal (a run the
    runner lost does not: running again makes it)."""
    challenge, seed = done.job.args[1], done.job.args[3]
    tally.retries += done.retries
    if done.value is not None:
        outcome, files = done.value
        for name, data in files.items():
            (logs / name).write_bytes(data)
        if outcome.log:
            outcome.log = str(logs / Path(outcome.log).name)
        outcome.retries = done.retries
        return outcome, True
    lost = not done.timed_out
    tally.lost += lost
    tally.deadline_timeouts += done.timed_out
    outcome = JudgedRun(
        name=challenge.name,
        passed=False,
        status=LOST if lost else "timeout",
        exit_code=None,
        attempts=0,
        wall_s=0.0 if lost else done.job.deadline_s,
        seed=seed,
        error=done.failure,
        retries=done.retries,
    )
    return outcome, not lost


def run_on_ray(
    pending: list[tuple[Challenge, int | None]],
    settings: RunSettings,
    logs: Path,
    jobs: int | None,
    options: RayOptions,
    record: Callable[[JudgedRun, bool], None],
    tally: RayTally,
) -> None:
    """Run `pending` on Ray, at most `jobs` at a time (None: as many as the cluster's CPUs
    hold); each outcome goes to `record(outcome, journalled)` as its task ends."""
    require_ray()
    own_env = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIX)))
    settings = replace(settings, env=own_env)
    with connected(options.address) as cluster:
        tally.cluster = cluster.describe()
        ray = require_ray()
        challenges = {c.name: c for c, _ in pending}
        bundles = {name: ray.put(pack(c.folder)) for name, c in challenges.items()}
        own = settings.codur_command == DEFAULT_COMMAND
        work = [
            Job(
                key=f"{challenge.name} seed {seed_label(seed)}",
                fn=run_remote,
                args=(bundles[challenge.name], challenge, settings, seed, own),
                cpus=options.placement.cpus,
                deadline_s=_deadline(challenge, settings, options),
            )
            for challenge, seed in pending
        ]
        with closing(run_jobs(work, jobs)) as finished:
            for done in finished:
                record(*_outcome(done, logs, tally))
