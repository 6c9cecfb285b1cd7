"""Review: decide on the last attempt and the verdict: end (verified, stuck, unverified,
done), run the repair search on a new failure, sample candidates, or try again.

Every model attempt leaves an Attempt record whose one-line summary goes into the next
prompt (beside the current failure, which every prompt carries). Stuck: the same failure
twice, a rejected reply repeated, or replies that keep repeating earlier ones.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from codur.graph.attempts import attempt, failure_line
from codur.graph.nodes import traced
from codur.graph.pruning import feedback, prune
from codur.graph.state import AgentState, Attempt
from codur.session import Session
from codur.verify.result import VerificationResult

MAX_REPEATS = 2
"""Replies identical to an earlier one (each dropped) before the run is stuck."""


def _end(status: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"next_action": "end", "status": status, "status_message": message, **extra}


def _again(
    state: AgentState, session: Session, record: Attempt | None, text: str | None = None
) -> dict[str, Any]:
    """Another attempt, after `record` (feedback `text` is kept in the conversation log;
    the next prompt is built afresh from the files, the failure and the attempts)."""
    attempts = [*state.get("attempts", []), *([record] if record else [])]
    if not session.model_allowed:
        return _no_model(state, attempts=attempts)
    iterations = state.get("iterations", 0) + 1
    limit = session.config.runtime.max_iterations
    if iterations >= limit:
        message = f"no verification passed in {limit} iterations"
        return _end("unverified", message, iterations=iterations, attempts=attempts)
    messages: list[Any] = [feedback(text)] if text else []
    messages += prune(
        [*state.get("messages", []), *messages], session.config.planning.keep_feedback_messages
    )
    sampling = session.config.sampling.candidates > 0 and _has_failed_once(attempts)
    return {
        "next_action": "sample" if sampling else "continue",
        "iterations": iterations,
        "messages": messages,
        "attempts": attempts,
    }


def _has_failed_once(attempts: list[Attempt]) -> bool:
    """Sampling starts after the first model attempt failed (it was the greedy one)."""
    return any(a.get("agent") not in ("repair", "") for a in attempts)


@traced("review")
def review(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    return {**_review(state, runtime.context), "llm_calls": runtime.context.usage.calls}


def _review(state: AgentState, session: Session) -> dict[str, Any]:
    outcome = state.get("agent_outcome", {})
    iteration = state.get("iterations", 0) + 1
    attempts = state.get("attempts", [])
    if outcome.get("agent") == "tool":
        status = "done" if outcome.get("status") == "completed" else "unverified"
        return _end(status, "tool calls finished", iterations=iteration)
    if outcome.get("truncated"):
        summary = "the reply was cut off at the length limit; nothing of it was applied"
        return _again(state, session, attempt(state, "cut", summary))
    if outcome.get("duplicate"):
        return _repeated(state, session, attempts, outcome.get("digest", ""), iteration)
    if outcome.get("error"):
        error = outcome["error"]
        record = attempt(state, "rejected", f"rejected: {error.splitlines()[0]}")
        return _again(state, session, record, f"Your edit was rejected: {error}")
    verdict = state.get("verification")
    if outcome.get("status") == "delegated":  # the check before any agent ran
        return _before_first_attempt(verdict, state, session)
    if verdict is None or verdict.strategy == "none":
        why = "nothing in the folder or the task says what the program should do"
        return _unchecked(session, outcome, iteration, why)
    if state.get("next_action") != "review":  # not back from a repair that found nothing
        attempts = [*attempts, _applied(state, outcome, verdict)]
    if verdict.passed:
        checks = "; ".join(e.summary for e in verdict.evidence)
        if verdict.strategy == "static":
            why = f"only static checks ran ({checks})"
            return _unchecked(session, outcome, iteration, why, attempts=attempts)
        if _unshown_fix(session, verdict):
            why = "the test the model wrote passed before the change too, so it does not show a fix"
            return _end("unverified", f"no check: {why}", attempts=attempts, iterations=iteration)
        return _end("verified", checks, attempts=attempts, iterations=iteration)
    if _repairable(verdict, state, session):
        return {"next_action": "repair", "attempts": attempts}
    state = {**state, "attempts": attempts}
    seen = state.get("error_fingerprints", [])
    new = [f for f in outcome.get("fingerprints", [verdict.fingerprint]) if f not in seen]
    if outcome.get("files_changed") and verdict.fingerprint in seen:
        return _end("stuck", "the same failure came back twice", attempts=attempts)
    if outcome.get("agent") == "sample" and not new:
        message = "every sampled candidate failed in a way seen before"
        return _end("stuck", message, attempts=attempts)
    update = _again(state, session, None, verdict.feedback)
    return {**update, "error_fingerprints": [*seen, *new]}


def _applied(state: AgentState, outcome: dict, verdict: VerificationResult) -> Attempt:
    """The record of an attempt whose edits were applied and checked."""
    changed = outcome.get("files_changed", [])
    notes = "; ".join(outcome.get("notes", []))
    if outcome.get("agent") == "sample":
        tried = "; ".join(outcome.get("candidates", []))
        return attempt(state, "sampled", f"sampled fixes that failed: {tried}")
    if verdict.passed:
        return attempt(state, "passed", "passed")
    if not changed:
        summary = "the reply changed no file" + (f" ({notes})" if notes else "")
        return attempt(state, "no edit", summary)
    what = f"changed {', '.join(changed)}; the check still failed: {failure_line(verdict)}"
    return attempt(state, "failed", what + (f" ({notes})" if notes else ""))


def _repeated(
    state: AgentState, session: Session, attempts: list[Attempt], digest: str, iteration: int
) -> dict[str, Any]:
    """A reply identical to an earlier one: dropped; stuck if that one was rejected or
    replies keep repeating."""
    earlier = [a for a in attempts if a.get("digest") == digest]
    repeats = sum(a.get("outcome") == "duplicate" for a in attempts) + 1
    record = attempt(state, "duplicate", "repeated an earlier reply word for word")
    if any(a.get("outcome") == "rejected" for a in earlier):
        message = "the model repeated a reply that was rejected"
        return _end("stuck", message, attempts=[*attempts, record], iterations=iteration)
    if repeats >= MAX_REPEATS:
        message = f"the model repeated earlier replies {repeats} times"
        return _end("stuck", message, attempts=[*attempts, record], iterations=iteration)
    return _again(state, session, record)


def _unshown_fix(session: Session, verdict: VerificationResult) -> bool:
    """The only behavioural check is a model-written test that already passed on the
    files as the run found them."""
    scope = session.scope
    if scope is None or not scope.model_test or scope.model_test_failed_first is not False:
        return False
    return all(e.check in ("derived", "oracle") for e in verdict.evidence)


def _unchecked(
    session: Session, outcome: dict, iteration: int, why: str, **extra: Any
) -> dict[str, Any]:
    """No check of the behaviour: an answer that changed nothing is done; changed code
    that nothing could check is not verified (exit 1), whatever the model claims."""
    changed = session.snapshot.changed() if session.snapshot else []
    reply = outcome.get("reply", "")
    if not changed:
        return _end(
            "done", "nothing was changed", final_response=reply, iterations=iteration, **extra
        )
    return _end(
        "unverified",
        f"no check: {why}; changed {', '.join(changed)}",
        final_response=reply,
        iterations=iteration,
        **extra,
    )


def _before_first_attempt(
    verdict: VerificationResult | None, state: AgentState, session: Session
) -> dict[str, Any]:
    """Search a repair if the files already fail their check; else the agent runs."""
    if verdict is not None and not verdict.passed and _repairable(verdict, state, session):
        return {"next_action": "repair"}
    if not session.model_allowed:
        if verdict is not None and verdict.passed and verdict.strategy != "static":
            return _end("verified", "the check already passes; nothing was changed")
        return _no_model(state)
    return {"next_action": "execute"}


def _no_model(state: AgentState, **extra: Any) -> dict[str, Any]:
    found = "the repair search found no fix" if state.get("repairs_tried") else "no repair"
    return _end("unverified", f"no model (--no-model): {found}", **extra)


def _repairable(verdict: VerificationResult, state: AgentState, session: Session) -> bool:
    """A failure of a program or tests the repair search has not been run on yet."""
    return (
        session.config.repair.enabled
        and verdict.strategy in ("output", "tests", "hybrid")
        and verdict.fingerprint not in state.get("repairs_tried", [])
    )
