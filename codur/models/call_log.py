"""What one model call writes to the debug log and adds to the run's meter: the fields of
its `model.request` and `model.response` events, its reply's tokens, and a provider's
error in one line without a secret."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codur.models.finish import finish_reason
from codur.redaction import redact

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage, BaseMessage

    from codur.models.usage import Usage


def rendered(message: BaseMessage) -> dict[str, Any]:
    """A request's message as the log shows it: role, content and any tool calls."""
    out: dict[str, Any] = {"role": message.type, "content": message.content}
    if getattr(message, "tool_calls", None):
        out["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in message.tool_calls]
    return out


def counted(reply: AIMessage, usage: Usage) -> dict[str, int]:
    """The reply's prompt, completion and cached prompt tokens (0 where the provider gives
    none), added to `usage`."""
    meta = getattr(reply, "usage_metadata", None) or {}
    tokens = {
        "prompt_tokens": int(meta.get("input_tokens", 0)),
        "completion_tokens": int(meta.get("output_tokens", 0)),
        "cached_tokens": int((meta.get("input_token_details") or {}).get("cache_read", 0)),
    }
    usage.prompt_tokens += tokens["prompt_tokens"]
    usage.completion_tokens += tokens["completion_tokens"]
    usage.cached_prompt_tokens += tokens["cached_tokens"]
    return tokens


def unreadable_calls(reply: AIMessage) -> dict[str, Any]:
    """The reply's calls whose arguments could not be read, for the log (none: nothing)."""
    calls = [
        {"name": c.get("name"), "args": c.get("args"), "error": c.get("error")}
        for c in reply.invalid_tool_calls
    ]
    return {"invalid_tool_calls": calls} if calls else {}


def response_fields(reply: AIMessage, tokens: dict[str, int], duration_s: float) -> dict[str, Any]:
    """The `model.response` event's fields (besides the profile and call number)."""
    return {
        "content": reply.content,
        "tool_calls": [{"name": c["name"], "args": c["args"]} for c in reply.tool_calls],
        **unreadable_calls(reply),
        **tokens,
        "finish_reason": finish_reason(reply),
        "duration_s": round(duration_s, 3),
        # where a backend measures them: seconds waiting for the model, evaluating the
        # prompt and generating (the embedded model's, codur.models.local_decoding)
        "timings": (getattr(reply, "response_metadata", None) or {}).get("timings", {}),
        **{k: v for k, v in (reply.response_metadata or {}).items() if k in NOTES},
    }


NOTES = ("prefix_restored", "prefix_cache_error", "repeated")
"""What the embedded model notes about a call, kept in its `model.response` event: prompt
tokens loaded from a saved state, why one could not be, the block a looping reply
repeated (codur.models.local)."""


def error_line(exc: BaseException) -> str:
    """The provider's error in one line, without a secret (a 401 may echo the key). An
    SDK's bare "Connection error." gets the cause under it (a certificate it could not
    verify, a refused connection, a key that is no valid header)."""
    line = _line(exc)
    cause = exc.__cause__ or exc.__context__
    while cause is not None and cause.__cause__ is not None:  # the deepest says most
        cause = cause.__cause__
    if cause is not None and _line(cause) and len(str(exc).strip()) < CAUSE_BELOW_CHARS:
        line += f" ({_line(cause)})"
    return redact(line)


CAUSE_BELOW_CHARS = 40
"""An error message shorter than this says too little alone: its cause is added."""


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
