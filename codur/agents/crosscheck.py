"""Cross-check: a change that only the docstrings' examples checked is compared with other
replies to the task as it began. Few examples pass for wrong code too; code that behaves
like independently drawn replies on inputs the examples leave out is more likely right
(execution-based consensus, as in CodeT and MBR-exec).

Each reply is tried in a scratch copy under the same check; those that pass run the probes
(codur/verify/probe.py) there, as do the files as they are. Each candidate's score is how
many returned values it shares with the others (a shared exception is no agreement); the
highest is kept, the files as they are on a tie. Drawing stops once `enough_agreeing`
replies behave like the files on every probe (each reply is checked before the next is
drawn, so a run is reproducible).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING

from codur.agents.proposal import Proposal
from codur.agents.sampling import Candidate
from codur.errors import AgentUnavailable, LimitReached, ModelError, ModelUnreachable
from codur.repair.scratch import Scratch
from codur.repair.trial import Trial, TrialResult
from codur.verify.agent import verification_context
from codur.verify.probe import behaviour, probes
from codur.workspace import SKIP_DIRS

if TYPE_CHECKING:
    from codur.agents.coder import CoderAgent
    from codur.agents.registry import AgentRequest
    from codur.session import Session
    from codur.verify.result import VerificationResult


DRAW_FAILURES = (ModelUnreachable, ModelError, LimitReached, AgentUnavailable)
"""A failure to draw a reply ends the drawing; the replies drawn so far are compared."""


@dataclass
class CrossCheck:
    probes: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    """The replies drawn; those that passed have a behaviour."""
    behaviours: list[list[str]] = field(default_factory=list)
    """The files as they are first, then each passing candidate's, in order."""
    scores: list[int] = field(default_factory=list)
    stopped: str = ""
    """Why drawing stopped before `crosscheck.candidates` replies (the model failed)."""
    chosen: Candidate | None = None
    """The reply to write instead of the files as they are; None: they stay."""
    duration_s: float = 0.0

    @property
    def line(self) -> str:
        """How it went, in a line (for the run's verdict and the log)."""
        passing = len(self.behaviours) - 1
        if not self.probes:
            return "no cross-check: the examples call no top-level function with literals"
        if not self.behaviours or not self.candidates:
            return f"no cross-check: {self.stopped}"
        alike = sum(b == self.behaviours[0] for b in self.behaviours[1:])
        verdict = "replaced by a reply they agree with more" if self.chosen else "kept"
        stopped = f"; {self.stopped}" if self.stopped else ""
        return (
            f"cross-checked on {self.probes} probe calls against {passing} of "
            f"{len(self.candidates)} other replies passing the same check "
            f"({alike} behave the same): {verdict}{stopped}"
        )


def checked_files(verdict: VerificationResult) -> list[str]:
    """The Python files whose docstring examples the verdict's derived checks ran."""
    return [f for f in verdict.plan.derived_files if f.endswith(".py")]


def choose(scores: list[int]) -> int:
    """The index of the highest `agreement` score; the lowest index on a tie."""
    return max(range(len(scores)), key=lambda i: (scores[i], -i)) if scores else 0


def agreement(behaviours: list[list[str]]) -> list[int]:
    """Per behaviour: the probe results it shares with each other one. Only values count:
    raising the same exception (or running out of time) on an input is no agreement, so
    code that crashes on an empty list like most replies do does not outvote code that
    handles it (HumanEval/9: three of four replies raised IndexError on `[]`)."""
    return [
        sum(
            x == y and x.startswith("=")
            for j, other in enumerate(behaviours)
            if j != i
            for x, y in zip(mine, other, strict=True)
        )
        for i, mine in enumerate(behaviours)
    ]


def cross_check(
    agent: CoderAgent,
    request: AgentRequest,
    verdict: VerificationResult,
    session: Session,
) -> CrossCheck:
    """Draw up to `crosscheck.candidates` replies to `request` and compare them with the
    files as they are (which passed `verdict`); nothing is written here. Where programs
    are not confined, only the examples' own calls are probed (no made-up arguments)."""
    start = time.monotonic()
    cfg = session.config
    files = checked_files(verdict)
    current = {p: text for p in files if (text := session.ws.read_text(p)) is not None}
    confined = session.sandbox.confiner is not None
    found = probes(current, cfg.crosscheck.probes, mutate=confined)
    result = CrossCheck(probes=len(found))
    if not found:
        return result
    observe = partial(behaviour, found=found, call_timeout_s=cfg.crosscheck.call_timeout_s)
    vctx = verification_context(session.tool_context(), cfg.verify)
    workers = cfg.sampling.workers
    ignore = {*SKIP_DIRS, *cfg.tools.ignore}
    with Scratch(session.ws.root, workers, ignore) as scratch, ThreadPoolExecutor(workers) as pool:
        trial = Trial(vctx, scratch, [verdict.plan])
        own = trial(current, observe)
        if not own.passed:
            result.stopped = f"the files as they are failed in a scratch copy: {own.why}"
            return _finish(result, [], session, start)
        if not any(r.startswith("=") for r in own.observed):
            result.stopped = "no probe call returned a value on the files as they are"
            return _finish(result, [], session, start)
        result.behaviours = [own.observed]
        drawn = _draw(
            agent, request, current, session, partial(trial, observe=observe), pool, own, result
        )
        passing: list[Candidate] = []
        for candidate, future in drawn:
            outcome = future.result()
            candidate.status = "passed" if outcome.passed else "failed"
            candidate.why = outcome.why
            if outcome.passed:
                passing.append(candidate)
                result.behaviours.append(outcome.observed)
    if not result.candidates and not result.stopped:
        result.stopped = "no reply was drawn"
    return _finish(result, passing, session, start)


def _draw(
    agent: CoderAgent,
    request: AgentRequest,
    current: dict[str, str],
    session: Session,
    trial: Callable[[dict[str, str]], TrialResult],
    pool: ThreadPoolExecutor,
    own: TrialResult,
    result: CrossCheck,
) -> list[tuple[Candidate, Future[TrialResult]]]:
    """The replies drawn, each with its trial (one trial per distinct code). A reply is
    tried on the files it was written against (as the run found them), with its changes."""
    cfg = session.config.crosscheck
    mine: Future[TrialResult] = Future()
    mine.set_result(own)
    tried = {_key(current): mine}
    found_as = {p: t for p, t in request.files.items() if p in current}
    drawn: list[tuple[Candidate, Future[TrialResult]]] = []
    for index in range(cfg.candidates):
        if _enough(own, drawn, cfg.enough_agreeing):
            break
        if _out_of_calls(session):
            result.stopped = "drawing stopped: the model-call limit was reached"
            break
        try:
            proposal, _ = agent.propose(request, session, sample=session.usage.calls)
        except DRAW_FAILURES as exc:  # the model or agent failed: the change passed as it is
            result.stopped = f"drawing stopped: {str(exc).splitlines()[0][:200]}"
            break
        candidate = Candidate(index, proposal, fresh=True)
        result.candidates.append(candidate)
        why = _unusable(proposal, current)
        if why:
            candidate.status, candidate.why = why
            continue
        same = {p: current[p] for p in proposal.unchanged if p in current}
        sources = {**current, **found_as, **same, **proposal.sources}
        candidate.proposal = replace(
            proposal, sources={p: t for p, t in sources.items() if t != current.get(p)}
        )
        key = _key(sources)  # the same code again is one more vote, tried once
        if key not in tried:
            tried[key] = pool.submit(trial, sources)
        drawn.append((candidate, tried[key]))
    return drawn


def _unusable(proposal: Proposal, current: dict[str, str]) -> tuple[str, str] | None:
    """(status, why) of a reply that cannot be compared; None when it can."""
    if proposal.truncated:
        return "cut", "cut off at the length limit"
    if proposal.error is not None:
        return "rejected", proposal.error.splitlines()[0][:200]
    if not proposal.sources and not proposal.unchanged:
        return "rejected", "no edit"
    if beyond := sorted(set(proposal.sources) - set(current)):
        return "rejected", f"changes files the examples do not check: {', '.join(beyond)}"
    return None


def _finish(
    result: CrossCheck, passing: list[Candidate], session: Session, start: float
) -> CrossCheck:
    for candidate in result.candidates:
        session.bus.emit(
            "crosscheck.candidate",
            index=candidate.index,
            status=candidate.status,
            why=candidate.why,
            digest=candidate.proposal.digest,
        )
    result.scores = agreement(result.behaviours)
    best = choose(result.scores)
    result.chosen = passing[best - 1] if best else None
    result.duration_s = round(time.monotonic() - start, 3)
    return result


def _key(sources: dict[str, str]) -> str:
    return repr(sorted(sources.items()))


def _enough(own: TrialResult, drawn: list[tuple[Candidate, Future[TrialResult]]], n: int) -> bool:
    """`n` replies behave like the files on every probe (0: never enough). Waits for the
    replies' checks, so a run draws the same replies every time."""
    if not n or len(drawn) < n:
        return False
    return sum(f.result().passed and f.result().observed == own.observed for _, f in drawn) >= n


def _out_of_calls(session: Session) -> bool:
    limit = session.usage.max_calls
    return limit is not None and session.usage.calls >= limit
