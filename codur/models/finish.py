"""Why a model stopped, read the same way for every provider."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage


def finish_reason(reply: AIMessage) -> str | None:
    """Why the model stopped, the same way for every provider: "stop" (done), "length"
    (cut by the output cap), "tool_calls", or None when the provider does not say.
    OpenAI-compatible servers and the embedded model report `finish_reason`, Ollama
    `done_reason`, Anthropic `stop_reason` (its own words, mapped), a script item
    `finish_reason` (default "stop")."""
    meta = reply.response_metadata or {}
    reason = meta.get("finish_reason") or meta.get("done_reason")
    if not reason and meta.get("stop_reason"):
        reason = ANTHROPIC.get(str(meta["stop_reason"]), meta["stop_reason"])
    return str(reason) if reason else None


ANTHROPIC = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}
ANTHROPIC["tool_use"] = "tool_calls"
"""Anthropic's stop reasons in the words of the others."""


def truncated(reply: AIMessage) -> bool:
    """Whether the output cap cut the reply short (its edits are incomplete)."""
    return finish_reason(reply) == "length"
