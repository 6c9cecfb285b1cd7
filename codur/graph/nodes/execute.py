"""Execute: run the run's agent (its tool loop and edits) on the task, with the files as
they are now and how the check fails on them; record what happened as one Outcome."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.agents.registry import AgentResult, resolve
from codur.graph.attempts import build_request
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome, OutcomeKind
from codur.graph.state import AgentState
from codur.session import Session


@traced("execute")
def execute(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    agent = state["agent"]
    request = build_request(state, session, state.get("verification"))
    result = resolve(agent, session.config).build().run(request, session)
    return {"outcome": outcome(agent, result, request.answer), "messages": result.messages}


def outcome(agent: str, result: AgentResult, answer: bool = False) -> Outcome:
    """The typed outcome of one agent run."""
    kind: OutcomeKind
    if result.truncated:
        kind = "cut"
    elif result.duplicate:
        kind = "duplicate"
    elif result.error:
        kind = "rejected"
    elif answer:
        kind = "answered"
    else:
        kind = "edited" if result.files_changed else "no_edit"
    return Outcome(
        kind=kind,
        agent=agent,
        reply=result.reply,
        files_changed=tuple(result.files_changed),
        error=result.error or "",
        notes=tuple(result.notes),
        digest=result.digest,
    )
