"""Tool: run the tool calls planning decided on, through the registry. Their results go
back to planning (llm_plan) for the next step; a task that is itself the file operation
(phase 0's fast path) ends with their output."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.graph.nodes import traced
from codur.graph.state import AgentState, ToolRun
from codur.session import Session


@traced("tool")
def tool(state: AgentState, runtime: Runtime[Session]) -> Command[Literal["llm_plan", "__end__"]]:
    from codur.tools.registry import invoke

    ctx = runtime.context.tool_context()
    runs = []
    for call in state.get("tool_calls", []):
        result = invoke(call["tool"], call.get("args", {}), ctx)
        runs.append(ToolRun(call["tool"], dict(call.get("args", {})), result.ok, result.output))
    output = "\n\n".join(r.output for r in runs)
    update = {
        "tool_calls": [],
        "tool_results": [*state.get("tool_results", []), *runs],
        "tool_rounds": state.get("tool_rounds", 0) + 1,
        "final_response": output,
    }
    if state.get("tool_calls_by") == "planner":
        return Command(update=update, goto="llm_plan")
    ok = all(r.ok for r in runs)
    status = "done" if ok else "unverified"
    ended = {**update, "status": status, "status_message": "tool calls finished"}
    return Command(update={**ended, "iterations": state.get("iterations", 0) + 1}, goto="__end__")
