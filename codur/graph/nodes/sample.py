"""Sample: after the first model attempt failed, draw `sampling.candidates` replies to the
same prompt, try each in a scratch copy, and write the smallest that passes (verified
again on the real files next). None passing: nothing is written."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.agents.registry import resolve
from codur.agents.sampling import sample as draw
from codur.graph.attempts import build_request
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("sample")
def sample(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    from codur.agents.proposal import write

    session = runtime.context
    failing = state["verification"]
    agent = resolve(state["selected_agent"], session.config).build()
    request = build_request(state, session, failing)
    k = session.config.sampling.candidates
    result = draw(agent, request, failing, session, k)  # type: ignore[arg-type]
    session.bus.emit(
        "sample.end",
        candidates=len(result.candidates),
        passed=sum(c.status == "passed" for c in result.candidates),
        chosen=result.chosen.index if result.chosen else None,
        duration_s=result.duration_s,
    )
    outcome: dict[str, Any] = {
        "agent": "sample",
        "status": "completed" if result.chosen else "failed",
        "candidates": result.lines(),
        "fingerprints": [c.fingerprint for c in result.candidates if c.fingerprint],
        "files_changed": [],
    }
    if result.chosen is not None:
        outcome["reply"] = result.chosen.proposal.reply
        outcome["files_changed"], declined = write(result.chosen.proposal, session)
        outcome["notes"] = [*result.chosen.proposal.notes, *declined]
        if declined and not outcome["files_changed"]:
            outcome.update(status="failed", error="; ".join(declined))
    ready = bool(outcome["files_changed"])
    return {"agent_outcome": outcome, "next_action": "verify" if ready else "review"}
