"""Execute: run the delegated agent (its tool loop and edits) on the task."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.agents.registry import AgentRequest, resolve
from codur.graph.checks import run_check, target_for
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session
from codur.verify.check import failure_message


@traced("execute")
def execute(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    agent_ref = state["selected_agent"]
    files = dict(state.get("context_files", {}))
    target = target_for(state, session)
    if not files and target is not None and target.entry.endswith(".py"):
        files[target.entry] = session.ws.read_text(target.entry)
    files = {path: session.ws.read_text(path) for path in files}  # as they are now
    history = list(state.get("messages", []))[1:]
    evidence = None
    if not history and target is not None:  # no feedback yet: show how the check fails now
        verdict = run_check(target, session)
        if not verdict.passed:
            evidence = failure_message(session.ws, verdict, include_source=False)
    request = AgentRequest(
        task=state["task"],
        files=files,
        history=history,
        evidence=evidence,
    )
    result = resolve(agent_ref, session.config).build().run(request, session)
    for path in result.files_changed:
        if path in files or session.ws.resolve(path).is_file():
            files[path] = session.ws.read_text(path)
    outcome = {
        "agent": agent_ref,
        "status": "failed" if result.error else "completed",
        "reply": result.reply,
        "files_changed": result.files_changed,
    }
    if result.error:
        outcome["error"] = result.error
    return {"agent_outcome": outcome, "messages": result.messages, "context_files": files}
