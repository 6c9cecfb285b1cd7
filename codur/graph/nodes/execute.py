"""Execute: run the delegated agent (its tool loop and edits) on the task."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.agents.registry import AgentRequest, resolve
from codur.graph.checks import verify_now
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session
from codur.verify.derived import DerivedCheck
from codur.verify.plan import OutputCheck
from codur.verify.result import VerificationResult
from codur.verify.target import is_test


@traced("execute")
def execute(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    session = runtime.context
    agent_ref = state["selected_agent"]
    files = dict(state.get("context_files", {}))
    history = list(state.get("messages", []))[1:]
    verdict = state.get("verification")
    checked = verdict is not None and state.get("agent_outcome", {}).get("status") == "delegated"
    if not history and not checked:  # no feedback yet: see how the check fails now
        verdict = verify_now(state, session)
    if not files and verdict is not None:
        files = dict.fromkeys(_files_to_show(verdict))
    files = {path: session.ws.read_text(path) for path in files}  # as they are now
    evidence = verdict.feedback if not history and verdict and not verdict.passed else None
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


def _files_to_show(verdict: VerificationResult) -> list[str]:
    """With no files named in the task: the entry point or the files a derived check
    checks, else the code the failure ran."""
    checks = verdict.plan.checks
    entries = [c.entry for c in checks if isinstance(c, OutputCheck)]
    entries += [f for c in checks if isinstance(c, DerivedCheck) for f in c.files]
    code = [loc.path for loc in verdict.locations if not is_test(loc.path)]
    return list(dict.fromkeys(p for p in [*entries, *code] if p.endswith(".py")))[:3]
