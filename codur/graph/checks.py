"""Verification as the graph uses it: the verification agent on this task's files, and
what the run learns from it (a test the model wrote, files the failure happens in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codur.graph.state import AgentState, ModelTest
from codur.scope.learned import ScopeLearned, learn
from codur.session import Session
from codur.task import file_refs, named_tests
from codur.verify.agent import stated_check, verify_task
from codur.verify.plan import TestCheck
from codur.verify.result import VerificationResult

if TYPE_CHECKING:
    from codur.verify.derived import DerivedCheck

MODEL_TEST = "no expected output, no tests, nothing stated: a test the model wrote"
"""What the model's test, as the run's derived check, came from."""


def _needs_model_test(verdict: VerificationResult, state: AgentState, session: Session) -> bool:
    """Nothing checks behaviour (no expected output, tests, or derivable claims) in a run
    that is to change code, with a model at hand, and no test was asked for yet."""
    return (
        session.scope is not None
        and state.get("model_test") is None
        and verdict.strategy in ("static", "none")
        and session.model_allowed
    )


def _write_test(state: AgentState, session: Session, refs: list[str]) -> DerivedCheck | None:
    """The test the model writes for this run (None: no usable test came back)."""
    from codur.verify.model_test import write_test
    from codur.verify.target import python_files

    files = [r for r in refs if r.endswith(".py")] or sorted(python_files(session.ws.root))[:5]
    return write_test(session, state["task"], files)


def _broken_test(verdict: VerificationResult) -> str:
    """Why the model's test is no check at all: on the files as the run found them it ran
    no test (collection errors only: it imports what does not exist, or does not parse).
    A test that runs and fails, whatever it raises, is a check. Empty: it is one."""
    for evidence in verdict.evidence:
        if evidence.check == "derived" and not evidence.ran:
            return evidence.hint or evidence.summary
    return ""


def _said_of_the_bug(verdict: VerificationResult, state: AgentState) -> tuple | None:
    """The run's derived checks less those of what the task states that held beside the
    project's tests on the files as found: "total([1, 2, 3]) returns 5. Expected 6."
    reads as a claim of 5, which would fail every fix (None: none held)."""
    derived = _derived(state.get("derived"))
    plan = verdict.plan
    tests = [c for c in (plan.checks if plan else []) if isinstance(c, TestCheck)]
    if derived is None or plan is None or not any(not t.unreached for t in tests):
        return None  # no tests of the task's code: what the task states is the check
    held = [
        c
        for c, e in zip(plan.checks, verdict.evidence, strict=False)
        if stated_check(c) and e.passed and c in derived[0]
    ]
    return ([c for c in derived[0] if c not in held], derived[1]) if held else None


def _without(verdict: VerificationResult, kept: list) -> VerificationResult:
    """The verdict less the checks of what the task states that are not in `kept` (and
    their evidence): the repair search judges candidates by its plan."""
    plan = verdict.plan
    pairs = list(zip(plan.checks, verdict.evidence, strict=False))
    gone = [i for i, (c, _) in enumerate(pairs) if stated_check(c) and c not in kept]
    checks = [c for i, c in enumerate(plan.checks) if i not in gone]
    evidence = [e for i, e in enumerate(verdict.evidence) if i not in gone]
    return verdict.model_copy(
        update={"plan": plan.model_copy(update={"checks": checks}), "evidence": evidence}
    )


def _derived(found: Any) -> tuple[list, str] | None:
    """The state's derived checks as a pair (a checkpoint revives tuples as lists)."""
    return (list(found[0]), found[1]) if found else None


def verify_now(state: AgentState, session: Session) -> tuple[VerificationResult, dict[str, Any]]:
    """Decide how to verify (from what is in the folder, never by keywords) and run it,
    the tests that failed in the run's first and last checks first; put back oracle files
    a program changed. Returns the verdict and what the run learned, as the state's
    update: a test the model wrote (when nothing else checks behaviour), a file the task
    did not name opened to edits when the failure happens there."""
    refs = file_refs(state["task"]) or list(state.get("context_files", {}))
    changed = session.changes.written()
    scope = session.scope
    earlier = [state.get("first_verification"), state.get("verification")]
    failing = [t for v in earlier if v is not None for e in v.evidence for t in e.failing_tests]
    named = named_tests(state["task"])  # the tests the task names must pass (pytest ids:
    if any("::" not in i for i in failing):  # not beside a unittest run's dotted ids)
        named = []
    failing = [*named, *failing]
    update: dict[str, Any] = {}

    def run(derived: tuple[list, str] | None) -> VerificationResult:
        return verify_task(
            session.tool_context(),
            session.config.verify,
            refs,
            changed,
            state["task"],
            derived,
            failing,
            scope,
            session.changes.originals(changed),
        )

    verdict = run(_derived(state.get("derived")))
    first = state.get("first_verification") is None and state.get("verification") is None
    if first and (said := _said_of_the_bug(verdict, state)) is not None:
        update["derived"], verdict = said, _without(verdict, said[0])
    if _needs_model_test(verdict, state, session):
        update["model_test"] = ModelTest("")  # asked once per run, whatever comes back
        check = _write_test(state, session, refs)
        if check is not None:
            mine = ([check], MODEL_TEST)
            first = run(mine)
            if broken := _broken_test(first):
                session.bus.emit("verify.model_test_rejected", reason=broken, test=check.test)
                update["derived"] = None  # back to the static check: no check
            else:
                verdict = first
                update["model_test"] = ModelTest(check.test, failed_first=not verdict.passed)
                update["derived"] = mine
    if scope is not None:
        if restored := scope.restore_oracle():
            session.bus.emit("scope.restored", files=restored, reason="changed by a program run")
        for loc in verdict.locations[-1:] if not verdict.passed else []:
            why = f"the failing run's traceback ends there (line {loc.line})"
            if widened := scope.widening(loc.path, why):  # the failure is in a file not named
                session.bus.emit("scope.widen", path=loc.path, reason=why)
                update |= knowing(session, widened)
    return verdict, update


def knowing(session: Session, learned: ScopeLearned) -> dict[str, Any]:
    """The run's write path learns `learned` now (the next step's edits are judged with
    it); returned as the state's update, which holds it for a resumed run."""
    if session.scope is None or not learned:
        return {}
    session.changes.scope = session.scope.knowing(learn(session.scope.learned, learned))
    return {"scope_learned": learned}
