"""Routers: pure functions of the state, each returning the next node's name."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END

from codur.graph.state import AgentState

_DECIDED = {"delegate": "delegate", "tool": "tool", "end": END}
"""Where a planning phase that has decided goes; undecided, it falls through."""


def _route(state: AgentState, undecided: str) -> str:
    return _DECIDED.get(state.get("next_action", ""), undecided)


def after_textual_pre_plan(
    state: AgentState,
) -> Literal["llm_pre_plan", "delegate", "tool", "__end__"]:
    return _route(state, "llm_pre_plan")  # type: ignore[return-value]


def after_llm_pre_plan(state: AgentState) -> Literal["llm_plan", "delegate", "tool", "__end__"]:
    return _route(state, "llm_plan")  # type: ignore[return-value]


def after_llm_plan(state: AgentState) -> Literal["delegate", "tool", "__end__"]:
    return _route(state, "delegate")  # type: ignore[return-value]


def after_review(state: AgentState) -> Literal["textual_pre_plan", "repair", "__end__"]:
    action = state.get("next_action")
    return "textual_pre_plan" if action == "continue" else "repair" if action == "repair" else END


def after_repair(state: AgentState) -> Literal["verify", "review"]:
    """A repair that was applied is verified again; none found goes back to review."""
    return "verify" if state.get("next_action") == "verify" else "review"
