"""Review: judge the attempt and decide: end (verified, stuck, unverified, done) or loop.

The check comes from what is in the folder (graph.checks); the same failure twice means
stuck; a failure goes back to the agent as structured feedback (expected / actual /
error); old rounds are pruned from the conversation.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import RemoveMessage
from langgraph.runtime import Runtime

from codur.graph.checks import run_check, target_for
from codur.graph.nodes import traced
from codur.graph.pruning import feedback, prune
from codur.graph.state import AgentState
from codur.resources import prompt
from codur.session import Session
from codur.verify.check import failure_message


def _end(status: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"next_action": "end", "status": status, "status_message": message, **extra}


def _again(state: AgentState, session: Session, text: str | None, **extra: Any) -> dict[str, Any]:
    """Loop for another attempt (feedback `text`, or None to just sample again)."""
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
    if outcome.get("agent") == "tool":
        status = "done" if outcome.get("status") == "completed" else "unverified"
        return _end(status, "tool calls finished", iterations=state.get("iterations", 0) + 1)
    if outcome.get("error"):
        return _again(state, session, prompt("edit_rejected.md").format(error=outcome["error"]))
    target = target_for(state, session)
    if target is None:
        return _end(
            "done",
            "nothing in the folder to verify against",
            final_response=outcome.get("reply", ""),
            iterations=state.get("iterations", 0) + 1,
        )
    verdict = run_check(target, session)
    attempt = {
        "iteration": state.get("iterations", 0) + 1,
        "agent": outcome.get("agent", ""),
        "files_changed": outcome.get("files_changed", []),
        "outcome": "passed" if verdict.passed else verdict.fingerprint[:200],
    }
    attempts = [*state.get("attempts", []), attempt]
    if verdict.passed:
        return _end(
            "verified", target.describe(), attempts=attempts, iterations=attempt["iteration"]
        )
    if not outcome.get("files_changed"):
        return _again(state, session, None, attempts=attempts)
    seen = state.get("error_fingerprints", [])
    if verdict.fingerprint in seen:
        return _end(
            "stuck",
            "the same failure came back twice",
            attempts=attempts,
            iterations=attempt["iteration"],
        )
    message = failure_message(session.ws, verdict, include_source=False)
    return _again(
        state, session, message, attempts=attempts, error_fingerprints=[*seen, verdict.fingerprint]
    )
