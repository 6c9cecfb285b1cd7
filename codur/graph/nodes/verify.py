"""Verify: the verification agent judges the files as they are now (typed verdict)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.checks import verify_now
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("verify")
def verify(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    outcome = state.get("agent_outcome", {})
    if outcome.get("error") or outcome.get("duplicate") or outcome.get("truncated"):
        return {}  # nothing was applied: the last verdict still describes the files
    return {"verification": verify_now(state, runtime.context)}
