"""Message pruning: keep the original task and the most recent attempts with their
verification feedback, so a small model is not misled by stale rounds; drop older rounds
whole, so a tool call is never separated from its result."""

from __future__ import annotations

from langchain_core.messages import AnyMessage, HumanMessage, RemoveMessage

FEEDBACK = "codur_feedback"


def feedback(text: str) -> HumanMessage:
    """A verification-feedback turn (the end of one attempt's round)."""
    return HumanMessage(text, additional_kwargs={FEEDBACK: True})


def prune(messages: list[AnyMessage], keep_rounds: int) -> list[RemoveMessage]:
    """RemoveMessages for every round older than the last `keep_rounds`."""
    rounds: list[list[AnyMessage]] = [[]]
    for message in messages[1:]:  # messages[0] is the task: always kept
        rounds[-1].append(message)
        if message.additional_kwargs.get(FEEDBACK):
            rounds.append([])
    finished = [r for r in rounds if r and r[-1].additional_kwargs.get(FEEDBACK)]
    old = finished[: max(len(finished) - keep_rounds, 0)]
    return [RemoveMessage(id=m.id) for r in old for m in r if m.id]
