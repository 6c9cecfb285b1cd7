"""Verify: the verification agent judges the files as they are now (typed verdict).

The only place a check runs in the graph: before the first attempt (from delegate) and
after every attempt that may have changed files (execute, repair, sample)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from codur.graph.checks import knowing, verify_now
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.scope.learned import learn
from codur.session import Session
from codur.verify.preflight import require_runnable


@traced("verify")
def verify(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    outcome = state.get("outcome")
    if outcome is not None and not outcome.applied:
        return {}  # nothing was applied: the last verdict still describes the files
    session = runtime.context
    verdict, learned = verify_now(state, session)
    if outcome is None and "first_verification" not in state:  # the files as found
        require_runnable(verdict)  # a check no edit can make pass: nothing more is done
        scope = session.scope
        if scope is not None and not verdict.passed:  # the functions the tests saw fail
            # the failing tests focus the tests' helpers, unless the check was cut short
            # (then some failing tests were never seen: the whole suite's helpers stay)
            whole = not any(e.timed_out for e in verdict.evidence)
            ids = tuple(t for e in verdict.evidence for t in e.failing_tests) if whole else ()
            found = replace(scope.failing_found(verdict.locations), failing_tests=ids)
            for path, names in found.failing_calls.items():
                session.bus.emit("scope.failing_calls", path=path, functions=names)
            learned |= knowing(session, learn(learned.get("scope_learned"), found))
            if ids and session.scope is not None:  # the failing tests' helpers, from now on
                helpers = session.scope.summary()["test_helpers"]
                session.bus.emit("scope.helpers", tests=list(ids), test_helpers=helpers)
        return {**learned, "verification": verdict, "first_verification": verdict}
    return {**learned, "verification": verdict}
