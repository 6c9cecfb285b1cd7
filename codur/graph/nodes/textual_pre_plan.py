"""Phase 0, no model: read `@file` references into context and take the fast paths
(greetings, explicit file operations, explain F). A retry goes straight back to the agent
that made the attempt, with the feedback already in the conversation."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.errors import UsageError
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.planning.textual import fast_path
from codur.resources import prompt
from codur.session import Session
from codur.task import file_refs


@traced("textual_pre_plan")
def textual_pre_plan(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    if state.get("iterations", 0) > 0:
        replan = session.config.planning.replan_on_retry or not state.get("selected_agent")
        return {"next_action": "continue_to_llm_plan" if replan else "delegate"}
    task = state["task"]
    files = dict(state.get("context_files", {}))
    for ref in file_refs(task):
        if not session.ws.resolve(ref).is_file():
            raise UsageError(f"@{ref}: no such file in {session.ws.root}")
        files[ref] = session.ws.read_text(ref)
    decision = fast_path(task, prompt("greeting.md").strip())
    update: dict[str, Any] = {"context_files": files, "iterations": 0}
    if decision is None:
        return {**update, "next_action": "continue_to_llm_pre_plan"}
    if decision.kind == "respond":
        return {
            **update,
            "next_action": "end",
            "final_response": decision.response,
            "status": "done",
        }
    if decision.kind == "tool":
        return {**update, "next_action": "tool", "tool_calls": decision.tool_calls}
    files[decision.path] = session.ws.read_text(decision.path)  # explain F: no planning needed
    return {
        **update,
        "context_files": files,
        "next_action": "delegate",
        "intent": "answer",
        "selected_agent": session.config.agents.preferences.default_agent,
    }
