"""Verify: the verification agent judges the files as they are now (typed verdict).

The only place a check runs in the graph: before the first attempt (from delegate) and
after every attempt that may have changed files (execute, repair, sample)."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.checks import verify_now
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session


@traced("verify")
def verify(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    outcome = state.get("outcome")
    if outcome is not None and not outcome.applied:
        return {}  # nothing was applied: the last verdict still describes the files
    verdict = verify_now(state, runtime.context)
    if outcome is None and "first_verification" not in state:  # the files as found
        scope = runtime.context.scope
        if scope is not None and not verdict.passed:  # the functions the tests saw fail
            for path, names in scope.note_failure(verdict.locations).items():
                runtime.context.bus.emit("scope.failing_calls", path=path, functions=names)
        return {"verification": verdict, "first_verification": verdict}
    return {"verification": verdict}
