"""Sample: after the first model attempt failed, draw `sampling.candidates` replies to the
same prompt, try each in a scratch copy, and write the smallest that passes (verified
again on the real files next). None passing: nothing is written."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.registry import resolve
from codur.agents.sampling import sample as draw
from codur.graph.attempts import build_request, fresh_request
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome
from codur.graph.state import AgentState
from codur.session import Session


@traced("sample")
def sample(state: AgentState, runtime: Runtime[Session]) -> Command[Literal["verify", "review"]]:
    from codur.agents.proposal import write

    session = runtime.context
    failing = state["verification"]
    agent = resolve(state["agent"], session.config).build()
    request = build_request(state, session, failing)
    fresh = fresh_request(state, session) if session.config.sampling.fresh_starts else None
    k = session.config.sampling.candidates
    result = draw(agent, request, failing, session, k, fresh)  # type: ignore[arg-type]
    session.bus.emit(
        "sample.end",
        candidates=len(result.candidates),
        passed=sum(c.status == "passed" for c in result.candidates),
        chosen=result.chosen.index if result.chosen else None,
        duration_s=result.duration_s,
    )
    fingerprints = tuple(c.fingerprint for c in result.candidates if c.fingerprint)
    missed = Outcome(
        "no_sample",
        agent=state["agent"],
        candidates=tuple(result.lines()),
        fingerprints=fingerprints,
    )
    if result.chosen is None:
        return Command(update={"outcome": missed}, goto="review")
    proposal = result.chosen.proposal
    written, declined = write(proposal, session)
    if not written:
        error = "; ".join(declined)
        rejected = replace(missed, kind="rejected", error=error)
        return Command(update={"outcome": rejected}, goto="review")
    outcome = replace(
        missed,
        kind="sampled",
        reply=proposal.reply,
        files_changed=tuple(written),
        notes=(*proposal.notes, *declined),
    )
    return Command(update={"outcome": outcome}, goto="verify")
