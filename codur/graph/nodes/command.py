"""Run command: the run_command route. One shell command (planning's `command`), run
through the registry's run_command tool, so its approval, sandbox, timeout and output
caps apply; its output is the run's reply. Declined, failed to start or exited non-zero:
the run ends unverified (exit code 1), saying so."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("run_command")
def run_planned_command(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    from codur.tools.python import RunReport
    from codur.tools.registry import invoke

    command = state["command"]
    result = invoke("run_command", {"command": command}, runtime.context.tool_context())
    report = result.value if isinstance(result.value, RunReport) else None
    if report is None:  # declined, or refused before it ran: the tool's reason
        status, message = "unverified", result.output.splitlines()[0]
    elif report.exit_code == 0 and not report.stopped:
        status, message = "done", f"`{command}` exited with 0"
    else:
        status, message = (
            "unverified",
            f"`{command}` " + (report.stopped or f"exited with {report.exit_code}"),
        )
    return {
        "final_response": result.output,
        "status": status,
        "status_message": message,
        "iterations": state.get("iterations", 0) + 1,
    }
