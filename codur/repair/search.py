"""Repair search: try small AST mutations of the failing code, without a model.

Candidates (single mutations, then pairs) are ranked by `locate`, run `workers` at a time,
each in its own scratch copy and process, under the same checks the review node uses
(tests cut down to the failing ones, then the full plan to confirm). The first candidate
that passes wins, unless a smaller one at the same place also passes. Every candidate
tried goes out as a `repair.candidate` event (and so into the debug log), and while the
search runs a `repair.progress` event a second says how far it got (codur.events.Ticker).
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial

from codur.config.schema import RepairConfig, VerifyConfig
from codur.events import EventBus, Ticker
from codur.repair.locate import executed_lines, rank
from codur.repair.mutations import Mutation, apply_mutations, mutations, overlaps
from codur.repair.scratch import Scratch, in_copy
from codur.repair.searched import candidate_id
from codur.repair.trial import Trial
from codur.tools.context import ToolContext
from codur.verify.agent import verification_context
from codur.verify.plan import VerificationPlan
from codur.verify.result import VerificationResult
from codur.verify.target import is_test, python_files
from codur.workspace import SKIP_DIRS


@dataclass(frozen=True)
class Candidate:
    edits: tuple[Mutation, ...]

    @property
    def size(self) -> int:
        return sum(e.size for e in self.edits)

    @property
    def description(self) -> str:
        return "; ".join(f"{e.path} {e.description}" for e in self.edits)

    def sources(self, originals: dict[str, str]) -> dict[str, str]:
        files = dict.fromkeys(e.path for e in self.edits)
        return {
            f: apply_mutations(originals[f], [e for e in self.edits if e.path == f]) for f in files
        }

    def near(self, other: Candidate) -> bool:
        """Changes a line `other` changes (an alternative fix at the same place)."""
        mine = {(e.path, n) for e in self.edits for n in range(e.line, e.end_line + 1)}
        return any((e.path, n) in mine for e in other.edits for n in range(e.line, e.end_line + 1))


@dataclass(frozen=True)
class RepairResult:
    candidate: Candidate | None
    sources: dict[str, str]
    """The repaired files' new text (empty when nothing passed)."""
    diff: str
    tried: int
    candidates: int
    duration_s: float
    reason: str
    """repaired, budget (time ran out), exhausted (every candidate failed), no candidates,
    or pairs deferred (every single edit failed; pairs are left to a later search)."""
    tried_ids: tuple[str, ...] = ()
    """`candidate_id` of each candidate this search tried (codur/repair/searched.py)."""

    @property
    def done(self) -> bool:
        """The search reached its end: nothing is left to try on the same code."""
        return self.reason not in ("budget", "pairs deferred")

    @property
    def cut(self) -> bool:
        """Its budget ran out (the whole budget counts as spent)."""
        return self.reason == "budget"


def _diff(originals: dict[str, str], sources: dict[str, str]) -> str:
    return "".join(
        "".join(
            difflib.unified_diff(
                originals[f].splitlines(True), text.splitlines(True), f"a/{f}", f"b/{f}"
            )
        )
        for f, text in sources.items()
    )


def _pairs(singles: list[Mutation], pool: int) -> Iterator[Candidate]:
    """Pairs of the `pool` best single mutations, best-ranked pairs first."""
    best = singles[:pool]
    for total in range(1, 2 * len(best) - 2):
        for i in range(max(0, total - len(best) + 1), (total + 1) // 2):
            a, b = best[i], best[total - i]
            if not overlaps(a, b):
                yield Candidate((a, b))


TICK_S = 0.2
"""How often the search looks whether to report its progress while candidates run."""


class _Search:
    def __init__(
        self,
        trial: Trial,
        originals: dict[str, str],
        bus: EventBus,
        tick: Callable[..., None],
        expected_s: float = 0.0,
        measured: bool = False,
    ) -> None:
        self.trial, self.originals, self.bus = trial, originals, bus
        self.expected_s = expected_s
        """How long a candidate's checks take (the failing run's time): one is not started
        with less time left, since it would end past the deadline."""
        self.measured = measured
        """Whether the candidates' own times say it instead, their mean so far (a suite's
        failing tests run first: a candidate takes a fraction of the failing run)."""
        self.durations: list[float] = []
        self.tick = tick
        """Reports the progress (repair.progress) with the candidates tried so far."""
        self.tried = 0
        """Candidates tried so far, single edits and pairs."""
        self.tried_ids: list[str] = []

    def check(self, candidate: Candidate) -> tuple[bool, float, str]:
        try:
            sources = candidate.sources(self.originals)
        except ValueError as exc:
            return False, 0.0, f"cannot apply: {exc}"
        result = self.trial(sources)
        return result.passed, result.duration_s, result.why

    def run(
        self,
        candidates: Iterable[Candidate],
        workers: int,
        deadline: float,
        best: Candidate | None = None,
        stage: str = "single edits",
    ) -> tuple[Candidate | None, int, bool]:
        """Check candidates in order, `workers` at a time; (best, tried, out of time)."""
        pending = iter(candidates)
        running: dict[Future, Candidate] = {}
        tried = 0
        late = False
        with ThreadPoolExecutor(workers, thread_name_prefix="codur-repair") as pool:
            while True:
                while len(running) < workers:
                    if late := time.monotonic() + self.expected_s >= deadline:
                        break
                    candidate = next(pending, None)
                    if candidate is None:
                        break
                    if best is None or (candidate.size < best.size and candidate.near(best)):
                        running[pool.submit(self.check, candidate)] = candidate
                if not running:
                    return best, tried, late
                done, _ = wait(running, TICK_S, return_when=FIRST_COMPLETED)
                for future in done:
                    candidate = running.pop(future)
                    passed, duration, why = future.result()
                    if self.measured:
                        self.durations.append(duration)
                        self.expected_s = sum(self.durations) / len(self.durations)
                    tried += 1
                    self.tried += 1
                    self.tried_ids.append(candidate_id(candidate.description))
                    self.bus.emit(
                        "repair.candidate",
                        change=candidate.description,
                        operators=[e.operator for e in candidate.edits],
                        size=candidate.size,
                        passed=passed,
                        result=why,
                        duration_s=round(duration, 3),
                    )
                    if passed and (best is None or candidate.size < best.size):
                        best = candidate
                self.tick(tried=self.tried, stage=stage)


def _candidate_timeout(failing: VerificationResult, cfg: RepairConfig, vcfg: VerifyConfig) -> float:
    """A few times the failing run's duration; the minimum when that run hung (a hang
    says nothing of how long a correct run takes)."""
    if any(e.timed_out for e in failing.evidence):
        return cfg.min_candidate_timeout_s
    scaled = cfg.candidate_timeout_factor * failing.duration_s
    return min(vcfg.timeout_s, max(cfg.min_candidate_timeout_s, scaled))


Allows = Callable[[str, int, int], bool]
"""May lines first..last of a file change (0, 0: any part of it)? The run's edit scope:
never the oracle, never a program's harness, only the files the task names."""


def search(
    plan: VerificationPlan,
    failing: VerificationResult,
    ctx: ToolContext,
    cfg: RepairConfig,
    vcfg: VerifyConfig,
    allows: Allows | None = None,
    budget_s: float | None = None,
    skip: Collection[str] = (),
    max_depth: int | None = None,
) -> RepairResult:
    """Look for a small edit that makes `failing`'s checks pass; never touches `ctx.ws`.
    Mutations outside `allows` are never tried, nor candidates whose `candidate_id` is in
    `skip` (an earlier search of the same code tried them). `budget_s`: the wall time it
    may take (default: repair.time_budget_s); `max_depth`: at most repair.max_depth (its
    default), 1 leaves the pairs to a later search."""
    budget = cfg.time_budget_s if budget_s is None else budget_s
    start = time.monotonic()
    deadline = start + budget
    timeout = _candidate_timeout(failing, cfg, vcfg)
    ignore = {*SKIP_DIRS, *ctx.config.ignore}
    ticker = Ticker(ctx.bus, "repair.progress")
    quick, whole = plan.narrowed(failing.evidence), plan.bounded(timeout)
    with Scratch(ctx.ws.root, cfg.workers, ignore) as scratch:
        trace_s = min(budget / 2, max(4 * timeout, cfg.min_candidate_timeout_s))
        # the failing checks run under a tracer first: the lines they execute rank the
        # candidates (in a leased copy: what its programs write is put back before a
        # candidate); a suite's failing tests only, not the whole suite
        with scratch.lease() as folder:
            traced = in_copy(ctx, folder)
            executed = executed_lines(quick, traced, trace_s, partial(ticker, stage="tracing"))
        files = [p for p in python_files(ctx.ws.root) if not is_test(p) and p != "conftest.py"]
        if executed is not None:
            files = [p for p in files if p in executed]
        originals = {p: ctx.ws.read_text(p) for p in files}
        if allows is not None:
            files = [p for p in files if allows(p, 0, 0)]  # line 0: the file as a whole
            originals = {p: originals[p] for p in files}
        edits = [
            e
            for p, text in originals.items()
            for e in mutations(p, text, exception_names=failing.exceptions)
            if allows is None or allows(e.path, e.line, e.end_line)
        ]
        wrong = [e.first_wrong_line for e in failing.failed if e.first_wrong_line is not None]
        ranked = rank(edits, originals, executed, failing.locations, min(wrong, default=None))
        ctx.bus.emit(
            "repair.start",
            files=files,
            candidates=len(ranked),
            traced=executed is not None,
            budget_s=round(budget, 3),
            skipped=len(skip),
        )
        vctx = verification_context(ctx, vcfg, timeout)
        plans = [quick] if quick == plan else [quick, whole]
        tick = partial(ticker, candidates=len(ranked))
        # a candidate's checks take about as long as the failing run's, unless that one
        # hung (stopped at its timeout: a fix ends sooner), or they are a suite's failing
        # tests first (the candidates' own times tell); at most a candidate's timeout
        hung = any(e.timed_out for e in failing.evidence)
        narrowed = quick != plan
        expected = 0.0 if hung or narrowed else min(failing.duration_s, timeout)
        runner = _Search(Trial(vctx, scratch, plans), originals, ctx.bus, tick, expected, narrowed)
        fresh = partial(_untried, frozenset(skip))
        singles = fresh(Candidate((e,)) for e in ranked)
        best, tried, late = runner.run(singles, cfg.workers, deadline)
        depth = cfg.max_depth if max_depth is None else min(max_depth, cfg.max_depth)
        if best is None and depth >= 2 and not late:
            pairs = fresh(_pairs(ranked, cfg.pair_pool))
            best, more, late = runner.run(pairs, cfg.workers, deadline, stage="pairs")
            tried += more
        deferred = depth < cfg.max_depth and len(ranked) > 1
    duration = round(time.monotonic() - start, 3)
    ids = tuple(runner.tried_ids)
    if best is None:
        reason = _why_none(bool(ranked), late, deferred)
        return RepairResult(None, {}, "", tried, len(ranked), duration, reason, ids)
    sources = best.sources(originals)
    diff = _diff(originals, sources)
    return RepairResult(best, sources, diff, tried, len(ranked), duration, "repaired", ids)


def _why_none(candidates: bool, late: bool, deferred: bool) -> str:
    """The reason of a search that found nothing (RepairResult.reason)."""
    if not candidates:
        return "no candidates"
    if late:
        return "budget"
    return "pairs deferred" if deferred else "exhausted"


def _untried(skip: frozenset[str], candidates: Iterable[Candidate]) -> Iterator[Candidate]:
    return (c for c in candidates if candidate_id(c.description) not in skip)
