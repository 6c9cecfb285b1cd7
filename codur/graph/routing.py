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


def after_delegate(state: AgentState) -> Literal["execute", "verify"]:
    """Straight to the agent, or first a check of the files as they are (for a repair)."""
    return "verify" if state.get("next_action") == "verify" else "execute"


_AFTER_REVIEW = {
    "continue": "textual_pre_plan",
    "repair": "repair",
    "execute": "execute",
    "sample": "sample",
}


def after_review(
    state: AgentState,
) -> Literal["textual_pre_plan", "repair", "execute", "sample", "__end__"]:
    return _AFTER_REVIEW.get(state.get("next_action", ""), END)  # type: ignore[return-value]


def after_sample(state: AgentState) -> Literal["verify", "review"]:
    """A candidate that passed in a scratch copy is verified on the real files."""
    return "verify" if state.get("next_action") == "verify" else "review"


def after_repair(state: AgentState) -> Literal["verify", "review"]:
    """A repair that was applied is verified again; none found goes back to review."""
    return "verify" if state.get("next_action") == "verify" else "review"
