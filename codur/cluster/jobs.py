"""Jobs run as Ray tasks, their results streamed back in the order they finish.

Each job is one Ray task reserving `cpus` CPUs. A task whose process dies (a killed
worker, a lost node) is run again by Ray, up to MAX_RETRIES times; every start is noted
in a small ledger actor, so a finished job says how many times it was started again
(`Done.retries`) and a job that ran out of retries is a failure saying so, never a
silent one. A job running longer than its `deadline_s` (counted from its latest start)
is cancelled: first as Ctrl-C would (KeyboardInterrupt in the task, so the programs it
started are killed and its files removed), after GRACE_S by killing its worker. When
the caller stops (Ctrl-C, SIGTERM, an error), every job not finished is cancelled the
same way; the jobs already yielded stay the caller's.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from codur.cluster.connect import require_ray

MAX_RETRIES = 3
"""Times Ray runs a task again after the process running it died (Ray's default)."""
GRACE_S = 10.0
"""Seconds a cancelled task has to end by itself before its worker is killed."""
POLL_S = 1.0
"""Seconds between deadline checks while no job finishes."""


@dataclass(frozen=True)
class Job:
    key: str
    """Unique among the jobs of one call: names the task in Ray and in failures."""
    fn: Callable[..., Any]
    """A module-level function (pickled by reference: importable on every node)."""
    args: tuple[Any, ...]
    cpus: int
    deadline_s: float


@dataclass(frozen=True)
class Done:
    job: Job
    value: Any = None
    """What `fn` returned (None on failure)."""
    retries: int = 0
    """Times Ray started the job again because the process running it died."""
    failure: str = ""
    """Why there is no value: the exception `fn` raised, or the retries ran out."""
    timed_out: bool = False
    """Cancelled after running past its deadline."""


class Ledger:
    """The actor that notes each start of each job (Ray retries are otherwise silent)."""

    def __init__(self) -> None:
        self.starts: dict[str, list[tuple[float, str, int]]] = {}

    def started(self, key: str, node: str, pid: int) -> None:
        self.starts.setdefault(key, []).append((time.monotonic(), node, pid))

    def ages(self) -> dict[str, float]:
        """Seconds since each unfinished job's latest start."""
        now = time.monotonic()
        return {key: now - runs[-1][0] for key, runs in self.starts.items()}

    def finish(self, key: str) -> int:
        """How many times `key` was started; forgets it."""
        return len(self.starts.pop(key, []))


def _execute(ledger: Any, key: str, fn: Callable[..., Any], *args: Any) -> Any:
    """The task: note the start, then run the job (Ray has fetched any ObjectRef among
    `args`: a bundle put once for several jobs)."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    ray.get(ledger.started.remote(key, node, os.getpid()))
    return fn(*args)


def _capacity(ray: Any, cpus: int) -> int:
    return max(int(ray.cluster_resources().get("CPU", 0) // max(cpus, 1)), 1)


def run_jobs(jobs: Iterable[Job], window: int | None = None) -> Iterator[Done]:
    """Run `jobs` on the connected cluster, at most `window` at a time (None: as many
    as the cluster's CPUs hold, looked at again as jobs finish); yield each as it ends.
    Use it inside `contextlib.closing`, so the jobs left are cancelled as soon as the
    caller stops, not when the generator is collected."""
    ray = require_ray()
    ledger = ray.remote(num_cpus=0)(Ledger).remote()
    task = ray.remote(_execute)
    queue = deque(jobs)
    running: dict[Any, Job] = {}
    cancelled: dict[Any, tuple[float, bool]] = {}  # ref -> (when, forced)
    try:
        while queue or running:
            room = (window or _capacity(ray, queue[0].cpus if queue else 1)) - len(running)
            while queue and room > 0:
                job = queue.popleft()
                options = {"num_cpus": job.cpus, "max_retries": MAX_RETRIES, "name": job.key}
                running[task.options(**options).remote(ledger, job.key, job.fn, *job.args)] = job
                room -= 1
            ready, _ = ray.wait(list(running), num_returns=1, timeout=POLL_S)
            for ref in ready:
                yield _collect(ray, ledger, ref, running.pop(ref), ref in cancelled)
                cancelled.pop(ref, None)
            _enforce_deadlines(ray, ledger, running, cancelled)
    finally:
        _stop(ray, list(running))
        ray.kill(ledger)


def _collect(ray: Any, ledger: Any, ref: Any, job: Job, cancelled: bool) -> Done:
    from ray.exceptions import RayError, RayTaskError, TaskCancelledError

    try:
        value = ray.get(ref)
    except RayError as exc:
        retries = max(ray.get(ledger.finish.remote(job.key)) - 1, 0)
        if cancelled:
            why = f"ran past its deadline of {job.deadline_s:g} s and was cancelled"
            return Done(job, retries=retries, failure=why, timed_out=True)
        if isinstance(exc, RayTaskError) and not isinstance(exc, TaskCancelledError):
            cause = exc.cause if exc.cause is not None else exc  # fn raised: not retried
            return Done(job, retries=retries, failure=f"{type(cause).__name__}: {_line(cause)}")
        # its process died more than MAX_RETRIES times (or Ray lost it otherwise)
        why = f"lost: {type(exc).__name__} after {retries} retries: {_line(exc)}"
        return Done(job, retries=retries, failure=why)
    retries = max(ray.get(ledger.finish.remote(job.key)) - 1, 0)
    return Done(job, value=value, retries=retries)


def _line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0][:300]


def _enforce_deadlines(
    ray: Any, ledger: Any, running: dict[Any, Job], cancelled: dict[Any, tuple[float, bool]]
) -> None:
    """Cancel the jobs past their deadline; kill the workers of those cancelled more than
    GRACE_S ago that are still running."""
    if not running:
        return
    ages = ray.get(ledger.ages.remote())
    now = time.monotonic()
    for ref, job in running.items():
        if ref not in cancelled and ages.get(job.key, 0.0) > job.deadline_s:
            ray.cancel(ref, force=False)
            cancelled[ref] = (now, False)
        elif ref in cancelled and not cancelled[ref][1] and now - cancelled[ref][0] > GRACE_S:
            ray.cancel(ref, force=True)
            cancelled[ref] = (now, True)


def _stop(ray: Any, refs: list[Any]) -> None:
    """Cancel `refs`: gently, then, after GRACE_S, by killing their workers."""
    if not refs:
        return
    for ref in refs:
        ray.cancel(ref, force=False)
    _, left = ray.wait(refs, num_returns=len(refs), timeout=GRACE_S)
    for ref in left:
        ray.cancel(ref, force=True)
