"""Sample and verify: draw k differently sampled replies to the same prompt, try each in
a scratch copy (the repair search's machinery) while the next is generated, and keep the
smallest that passes the check. The user's files change only if one passes.

Generation stops early once a candidate has passed (on a CPU every reply costs seconds);
candidates already generated are still checked, and the smallest passing one wins.
Repeated replies are tried once; cut, rejected and repeated ones are reported.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codur.agents.proposal import Proposal
from codur.repair.scratch import Scratch
from codur.repair.trial import Trial, TrialResult
from codur.verify.agent import verification_context
from codur.workspace import SKIP_DIRS

if TYPE_CHECKING:
    from codur.agents.coder import CoderAgent
    from codur.agents.registry import AgentRequest
    from codur.session import Session
    from codur.verify.result import VerificationResult


@dataclass
class Candidate:
    index: int
    proposal: Proposal
    status: str = "pending"
    """passed, failed, rejected, cut, duplicate."""
    why: str = ""
    size: int = 0
    fingerprint: str = ""
    fresh: bool = False
    """Drawn from the files as the run found them, not from the last attempt."""


@dataclass
class SampleRound:
    chosen: Candidate | None
    candidates: list[Candidate] = field(default_factory=list)
    duration_s: float = 0.0

    def lines(self) -> list[str]:
        """One line per candidate, for the next prompt and the log."""
        return [f"#{c.index + 1} {c.status}: {c.why}" for c in self.candidates]


def sample(
    agent: CoderAgent,
    request: AgentRequest,
    failing: VerificationResult,
    session: Session,
    k: int,
    fresh: AgentRequest | None = None,
) -> SampleRound:
    """One round of k candidates for `request`, checked under `failing`'s plan; with
    `fresh` (the request as the run began), every second candidate is drawn from it."""
    start = time.monotonic()
    cfg = session.config
    ctx = session.tool_context()
    vctx = verification_context(ctx, cfg.verify)
    quick = failing.plan.narrowed(failing.evidence)
    whole = failing.plan.bounded(cfg.verify.timeout_s)
    plans = [quick] if quick == failing.plan else [quick, whole]
    current = {p: session.ws.read_text(p) for p in request.files}
    seen = set(request.seen)
    candidates: list[Candidate] = []
    running: dict[Future[TrialResult], Candidate] = {}
    workers = cfg.sampling.workers
    ignore = {*SKIP_DIRS, *cfg.tools.ignore}
    with Scratch(session.ws.root, workers, ignore) as scratch, ThreadPoolExecutor(workers) as pool:
        trial = Trial(vctx, scratch, plans)
        for index in range(k):
            if any(f.done() and f.result().passed for f in running):
                break
            limit = session.usage.max_calls
            if limit is not None and session.usage.calls >= limit and running:
                break  # check what this round drew; with nothing to check, the call raises
            asked = fresh if fresh is not None and index % 2 == 1 else request
            proposal, _ = agent.propose(asked, session, sample=session.usage.calls)
            candidate = Candidate(index, proposal, fresh=asked is fresh)
            candidates.append(candidate)
            if proposal.truncated or proposal.error is not None:
                candidate.status = "cut" if proposal.truncated else "rejected"
                candidate.why = (proposal.error or "").splitlines()[0] if proposal.error else ""
            elif proposal.digest in seen or not proposal.sources:
                candidate.status = "duplicate" if proposal.digest in seen else "rejected"
                repeat = proposal.digest in seen
                candidate.why = "same as an earlier reply" if repeat else _empty(proposal)
            else:
                candidate.size = proposal.size(asked.files if asked is fresh else current)
                running[pool.submit(trial, proposal.sources)] = candidate
            seen.add(proposal.digest)
        for future, candidate in running.items():
            result = future.result()
            candidate.status = "passed" if result.passed else "failed"
            candidate.why = result.why
            if result.verdict is not None and not result.passed:
                candidate.fingerprint = result.verdict.fingerprint
    for candidate in candidates:
        session.bus.emit(
            "sample.candidate",
            index=candidate.index,
            status=candidate.status,
            why=candidate.why,
            size=candidate.size,
            digest=candidate.proposal.digest,
            fresh=candidate.fresh,
        )
    passing = [c for c in candidates if c.status == "passed"]
    chosen = min(passing, key=lambda c: (c.size, c.index)) if passing else None
    return SampleRound(chosen, candidates, round(time.monotonic() - start, 3))


def _empty(proposal: Proposal) -> str:
    """Why a reply that was neither cut nor refused changed nothing."""
    if proposal.unchanged:
        return f"no edit: it gave {', '.join(proposal.unchanged)} unchanged"
    return "no edit: nothing in it read as a change to a file"
