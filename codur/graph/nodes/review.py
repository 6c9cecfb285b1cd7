"""Review: decide on the verification agent's verdict: end (verified, stuck, unverified,
done), run the repair search on a new failure, or loop for another model attempt.

The same failure twice means stuck; a failure goes back to the agent as structured
feedback (expected / actual / error, where it fails); old rounds are pruned.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import RemoveMessage
from langgraph.runtime import Runtime

from codur.graph.nodes import traced
from codur.graph.pruning import feedback, prune
from codur.graph.state import AgentState
from codur.resources import prompt
from codur.session import Session
from codur.verify.result import VerificationResult


def _end(status: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"next_action": "end", "status": status, "status_message": message, **extra}


def _again(state: AgentState, session: Session, text: str | None, **extra: Any) -> dict[str, Any]:
    """Loop for another attempt (feedback `text`, or None to just sample again)."""
    if not session.model_allowed:
        return _no_model(state, **extra)
    iterations = state.get("iterations", 0) + 1
    limit = session.config.runtime.max_iterations
    if iterations >= limit:
        return _end(
            "unverified",
            f"no verification passed in {limit} iterations",
            iterations=iterations,
            **extra,
        )
    messages: list[Any] = []
    if text is not None:
        messages.append(feedback(text))
    else:  # an unchanged reply teaches nothing; replaying it invites a copy
        last = state.get("messages", [])[-1:]
        messages += [RemoveMessage(id=m.id) for m in last if m.type == "ai" and m.id]
    history = [*state.get("messages", []), *messages]
    messages += prune(history, session.config.planning.keep_feedback_messages)
    return {"next_action": "continue", "iterations": iterations, "messages": messages, **extra}


@traced("review")
def review(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
    return {**_review(state, runtime.context), "llm_calls": runtime.context.usage.calls}


def _review(state: AgentState, session: Session) -> dict[str, Any]:
    outcome = state.get("agent_outcome", {})
    iteration = state.get("iterations", 0) + 1
    if outcome.get("agent") == "tool":
        status = "done" if outcome.get("status") == "completed" else "unverified"
        return _end(status, "tool calls finished", iterations=iteration)
    if outcome.get("error"):
        return _again(state, session, prompt("edit_rejected.md").format(error=outcome["error"]))
    verdict = state.get("verification")
    if outcome.get("status") == "delegated":  # the check before any agent ran
        return _before_first_attempt(verdict, state, session)
    if verdict is None or verdict.strategy == "none":
        return _unchecked(
            session,
            outcome,
            iteration,
            "nothing in the folder or the task says what the program should do",
        )
    attempts = state.get("attempts", [])
    if state.get("next_action") != "review":  # not back from a repair that found nothing
        attempt = {
            "iteration": iteration,
            "agent": outcome.get("agent", ""),
            "files_changed": outcome.get("files_changed", []),
            "outcome": "passed" if verdict.passed else verdict.fingerprint[:200],
        }
        attempts = [*attempts, attempt]
    if verdict.passed:
        checks = "; ".join(e.summary for e in verdict.evidence)
        if verdict.strategy == "static":
            why = f"only static checks ran ({checks})"
            return _unchecked(session, outcome, iteration, why, attempts=attempts)
        return _end("verified", checks, attempts=attempts, iterations=iteration)
    if _repairable(verdict, state, session):
        return {"next_action": "repair", "attempts": attempts}
    if not outcome.get("files_changed"):
        return _again(state, session, None, attempts=attempts)
    seen = state.get("error_fingerprints", [])
    if verdict.fingerprint in seen:
        return _end(
            "stuck", "the same failure came back twice", attempts=attempts, iterations=iteration
        )
    return _again(
        state,
        session,
        verdict.feedback,
        attempts=attempts,
        error_fingerprints=[*seen, verdict.fingerprint],
    )


def _unchecked(
    session: Session, outcome: dict, iteration: int, why: str, **extra: Any
) -> dict[str, Any]:
    """No check of the behaviour: an answer that changed nothing is done; changed code
    that nothing could check is not verified (exit 1), whatever the model claims."""
    changed = session.restore.changed() if session.restore else []
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
