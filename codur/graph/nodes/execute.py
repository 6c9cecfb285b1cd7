"""Execute: run the delegated agent (its tool loop and edits) on the task, with the
files as they are now and how the check fails on them."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.agents.registry import resolve
from codur.graph.attempts import build_request
from codur.graph.checks import verify_now
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("execute")
def execute(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    agent_ref = state["selected_agent"]
    verdict = state.get("verification")
    first = not state.get("attempts")
    checked = verdict is not None and state.get("agent_outcome", {}).get("status") == "delegated"
    if first and not checked:  # no check yet: see how it fails now
        verdict = verify_now(state, session)
    request = build_request(state, session, verdict)
    result = resolve(agent_ref, session.config).build().run(request, session)
    outcome: dict[str, Any] = {
        "agent": agent_ref,
        "status": "failed" if result.error or result.duplicate or result.truncated else "completed",
        "reply": result.reply,
        "files_changed": result.files_changed,
        "notes": result.notes,
        "digest": result.digest,
        "duplicate": result.duplicate,
        "truncated": result.truncated,
    }
    if result.error:
        outcome["error"] = result.error
    update: dict[str, Any] = {"agent_outcome": outcome, "messages": result.messages}
    if verdict is not None and not checked and first:
        update["verification"] = verdict
    return update
