"""Routers: pure functions of the state, each returning the next node's name."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END

from codur.graph.state import AgentState


def after_textual_pre_plan(
    state: AgentState,
) -> Literal["llm_pre_plan", "delegate", "tool", "__end__"]:
    action = state.get("next_action")
    if action == "delegate":
        return "delegate"
    if action == "tool":
        return "tool"
    if action == "end":
        return END
    return "llm_pre_plan"


def after_llm_pre_plan(state: AgentState) -> Literal["llm_plan", "delegate", "tool", "__end__"]:
    action = state.get("next_action")
    if action == "delegate":
        return "delegate"
    if action == "tool":
        return "tool"
    if action == "end":
        return END
    return "llm_plan"


def after_llm_plan(state: AgentState) -> Literal["delegate", "tool", "__end__"]:
    action = state.get("next_action")
    if action == "tool":
        return "tool"
    if action == "end":
        return END
    return "delegate"


def after_review(state: AgentState) -> Literal["textual_pre_plan", "__end__"]:
    return "textual_pre_plan" if state.get("next_action") == "continue" else END
