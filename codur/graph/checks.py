"""Verification as the graph uses it: the verification agent on this task's files."""

from __future__ import annotations

from codur.graph.state import AgentState
from codur.session import Session
from codur.task import file_refs
from codur.verify.agent import verify_task
from codur.verify.result import VerificationResult


def _needs_model_test(verdict: VerificationResult, state: AgentState, session: Session) -> bool:
    """Nothing checks behaviour (no expected output, tests, or derivable claims) in a run
    that is to change code, with a model at hand, and no test was asked for yet."""
    scope = session.scope
    return (
        scope is not None
        and scope.model_test is None
        and verdict.strategy in ("static", "none")
        and session.model_allowed
    )


def _add_model_test(state: AgentState, session: Session, refs: list[str]) -> bool:
    from codur.verify.model_test import write_test
    from codur.verify.target import python_files

    scope = session.scope
    assert scope is not None
    files = [r for r in refs if r.endswith(".py")] or sorted(python_files(session.ws.root))[:5]
    scope.model_test = ""  # asked once per run, whatever comes back
    check = write_test(session, state["task"], files)
    if check is None:
        return False
    scope.model_test = check.test
    scope.derived = (
        [check],
        "no expected output, no tests, nothing stated: a test the model wrote",
    )
    return True


def _broken_test(verdict: VerificationResult) -> str:
    """Why the model's test is no check at all: on the files as the run found them it ran
    no test (collection errors only: it imports what does not exist, or does not parse).
    A test that runs and fails, whatever it raises, is a check. Empty: it is one."""
    for evidence in verdict.evidence:
        if evidence.check == "derived" and not evidence.ran:
            return evidence.hint or evidence.summary
    return ""


def _drop_model_test(session: Session, reason: str) -> None:
    scope = session.scope
    assert scope is not None
    session.bus.emit("verify.model_test_rejected", reason=reason, test=scope.model_test)
    scope.model_test, scope.derived = "", None


def verify_now(state: AgentState, session: Session) -> VerificationResult:
    """Decide how to verify (from what is in the folder, never by keywords) and run it,
    the tests that failed in the run's first and last checks first; put back oracle files
    a program changed, and open a file the task did not name to edits when the failure
    happens there."""
    refs = file_refs(state["task"]) or list(state.get("context_files", {}))
    changed = session.changes.written()
    scope = session.scope
    oracle = scope.oracle if scope else None
    earlier = [state.get("first_verification"), state.get("verification")]
    failing = [t for v in earlier if v is not None for e in v.evidence for t in e.failing_tests]

    def run() -> VerificationResult:
        derived = scope.derived if scope else None
        return verify_task(
            session.tool_context(),
            session.config.verify,
            refs,
            changed,
            state["task"],
            oracle,
            derived,
            scope.oracle_editable if scope else (),
            scope.present or () if scope else (),
            scope.compiled or {} if scope else {},
            (scope.site_dirs, scope.site_digests) if scope else ((), {}),
            failing,
        )

    verdict = run()
    if _needs_model_test(verdict, state, session) and _add_model_test(state, session, refs):
        first = run()
        if broken := _broken_test(first):
            _drop_model_test(session, broken)  # back to the static check: no check
        else:
            verdict = first
            if scope is not None and scope.model_test_failed_first is None:
                scope.model_test_failed_first = not verdict.passed
    if scope is not None:
        if restored := scope.restore_oracle():
            session.bus.emit("scope.restored", files=restored, reason="changed by a program run")
        for loc in verdict.locations[-1:] if not verdict.passed else []:
            why = f"the failing run's traceback ends there (line {loc.line})"
            if scope.widen(loc.path, why):  # the failure happens in a file not named
                session.bus.emit("scope.widen", path=loc.path, reason=why)
    return verdict
