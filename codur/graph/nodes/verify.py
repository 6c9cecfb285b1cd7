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
    if state.get("agent_outcome", {}).get("error"):
        return {"verification": None}  # the edit was refused: nothing new to judge
    return {"verification": verify_now(state, runtime.context)}
