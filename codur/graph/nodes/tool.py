"""Tool: run the tool calls planning decided on, through the registry."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("tool")
def tool(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    from codur.tools.registry import invoke

    ctx = runtime.context.tool_context()
    results = [
        invoke(call["tool"], call.get("args", {}), ctx) for call in state.get("tool_calls", [])
    ]
    output = "\n\n".join(r.output for r in results)
    ok = all(r.ok for r in results)
    return {
        "final_response": output,
        "agent_outcome": {
            "agent": "tool",
            "status": "completed" if ok else "failed",
            "reply": output,
        },
    }
