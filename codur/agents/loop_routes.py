"""Where the model <-> tools loop (codur.agents.loop) goes next, read from its state
alone: pure functions of the turn and the turns so far."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from codur.agents.turn import LoopState  # at run time: LangGraph reads the routes' hints

COMPLETE = "attempt_completion"
"""The tool whose success ends the loop in plan_verify mode (codur.tools.completion)."""


def last_reply(turns: list[BaseMessage]) -> AIMessage | None:
    return next((m for m in reversed(turns) if isinstance(m, AIMessage)), None)


def route(state: LoopState) -> Literal["tools", "remind", "done"]:
    """Tools while the last reply calls them and rounds are left; a reminder for a reply
    without tool calls when only attempt_completion may end the loop; else done."""
    reply = last_reply(state.get("turns", []))
    rounds_left = state.get("loop_rounds", 0) < state["turn"].max_rounds
    if reply is None or not rounds_left:
        return "done"
    if reply.tool_calls:
        return "tools"
    another = state.get("loop_rounds", 0) + 1 < state["turn"].max_rounds
    return "remind" if state["turn"].completion and another else "done"


def after_tools(state: LoopState) -> Literal["agent", "done"]:
    """Where attempt_completion is the way out: done once it succeeded, or when no round
    is left for another reply (it could not call it); else the agent."""
    turn = state["turn"]
    if not turn.completion:
        return "agent"
    ended = state.get("loop_rounds", 0) >= turn.max_rounds
    return "done" if ended or completion(state.get("turns", [])) is not None else "agent"


def completion(turns: list[BaseMessage]) -> str | None:
    """The result of the attempt_completion call that succeeded in the last round of
    tools; None: none did."""
    results: list[ToolMessage] = []
    for message in reversed(turns):
        if not isinstance(message, ToolMessage):
            break
        results.append(message)
    done = {m.tool_call_id for m in results if m.name == COMPLETE and m.status == "success"}
    reply = last_reply(turns)
    if not done or reply is None:
        return None
    call = next((c for c in reply.tool_calls if c["id"] in done), None)
    return str(call["args"].get("result", "")).strip() if call is not None else None


def hit_cap(turns: list[BaseMessage]) -> bool:
    """The loop ended on a reply that still calls tools: the round limit was reached."""
    reply = last_reply(turns)
    return reply is not None and bool(reply.tool_calls)
