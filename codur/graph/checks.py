"""Verification as the graph uses it: the verification agent on this task's files."""

from __future__ import annotations

from codur.graph.state import AgentState
from codur.session import Session
from codur.task import file_refs
from codur.verify.agent import verify_task
from codur.verify.result import VerificationResult


def verify_now(state: AgentState, session: Session) -> VerificationResult:
    """Decide how to verify (from what is in the folder, never by keywords) and run it."""
    refs = file_refs(state["task"]) or list(state.get("context_files", {}))
    changed = list(session.restore.saved) if session.restore else []
    return verify_task(session.tool_context(), session.config.verify, refs, changed, state["task"])
