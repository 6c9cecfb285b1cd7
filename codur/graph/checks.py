"""Verification as the graph uses it: the verification agent on this task's files."""

from __future__ import annotations

from codur.graph.state import AgentState
from codur.session import Session
from codur.task import file_refs
from codur.verify.agent import verify_task
from codur.verify.result import VerificationResult


def verify_now(state: AgentState, session: Session) -> VerificationResult:
    """Decide how to verify (from what is in the folder, never by keywords) and run it;
    put back oracle files a program changed, and open a file the task did not name to
    edits when the failure happens there."""
    refs = file_refs(state["task"]) or list(state.get("context_files", {}))
    changed = session.written()
    scope = session.scope
    oracle = scope.oracle if scope else None
    derived = scope.derived if scope else None
    verdict = verify_task(
        session.tool_context(),
        session.config.verify,
        refs,
        changed,
        state["task"],
        oracle,
        derived,
    )
    if scope is not None:
        if restored := scope.restore_oracle():
            session.bus.emit("scope.restored", files=restored, reason="changed by a program run")
        for loc in verdict.locations[-1:] if not verdict.passed else []:
            why = f"the failing run's traceback ends there (line {loc.line})"
            if scope.widen(loc.path, why):  # the failure happens in a file not named
                session.bus.emit("scope.widen", path=loc.path, reason=why)
    return verdict
