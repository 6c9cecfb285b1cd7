"""The `anthropic` provider: Anthropic's Messages API via langchain-anthropic (the optional
`anthropic` extra: `pip install 'codur[anthropic]'`).

The reply is streamed (server-sent events: message_start, content blocks of text and
tool_use, message_delta with the stop reason and usage), so each chunk reaches the call's
progress while the model generates. The SDK's HTTP client gets the deadline of
`codur.models.deadline` and no retries of its own (ModelClient retries). The key comes
from the variable `api_key_env` names, never from config, and is masked in every log.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import Any

from codur.config.llm import require_key
from codur.config.schema import LLMProfile
from codur.errors import ConfigError, MissingExtra
from codur.models.base import ErrorKind, MalformedReply, StreamCut, estimate_tokens
from codur.models.deadline import sdk_http_client
from codur.redaction import remember

try:
    import anthropic
    from langchain_anthropic import ChatAnthropic
except ModuleNotFoundError as missing:
    raise MissingExtra(
        f"provider 'anthropic' needs {missing.name}, which is not installed: "
        "pip install 'codur[anthropic]'"
    ) from None

DEFAULT_BASE_URL = "https://api.anthropic.com"
_TRANSIENT_STATUS = {408, 409, 429}
"""Besides 5xx (529: overloaded): a timeout, a conflict and the rate limit are retried."""


class CodurChatAnthropic(ChatAnthropic):
    """ChatAnthropic on the SDK client Codur configures (the deadline, no retries, no
    kept-alive connections), and which calls a stream without a reply malformed and one
    without a stop reason cut."""

    timeout_s: float = 120.0

    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        """The reply with its text as one string, as every other provider gives it (the
        API's content blocks; the tool_use blocks are `tool_calls`, rebuilt from them
        when the turn is sent back)."""
        reply = super().invoke(*args, **kwargs)
        if isinstance(reply.content, list):
            text = "".join(
                str(b.get("text", ""))
                for b in reply.content
                if isinstance(b, dict) and b.get("type") == "text"
            )
            reply = reply.model_copy(update={"content": text})
        return reply

    @cached_property
    def _client(self) -> anthropic.Client:
        http = sdk_http_client(anthropic.DefaultHttpxClient, self.timeout_s)
        return anthropic.Client(**self._client_params, http_client=http)

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        chunks, stopped = 0, False
        for chunk in super()._stream(*args, **kwargs):
            chunks += 1
            metadata = chunk.message.response_metadata or {}
            stopped = stopped or bool(metadata.get("stop_reason"))
            yield chunk
        if not chunks:
            raise MalformedReply("HTTP 200, but no Messages API events in the stream")
        if not stopped:
            raise StreamCut("the streamed reply ended before the server finished it")


def api_key(name: str, profile: LLMProfile) -> str:
    """The key from the environment variable the profile names (ConfigError without)."""
    if not profile.api_key_env:
        raise ConfigError(
            f"profile '{name}': provider anthropic needs api_key_env "
            "(the environment variable holding the key, e.g. ANTHROPIC_API_KEY)"
        )
    require_key(name, profile)  # set, and fit for an HTTP header
    value = os.environ[profile.api_key_env]
    remember([value])  # masked wherever it shows up, whatever the variable's name
    return value


def build(name: str, profile: LLMProfile) -> CodurChatAnthropic:
    return CodurChatAnthropic(
        model=profile.model,
        base_url=endpoint(profile),  # explicit, so ANTHROPIC_BASE_URL cannot redirect it
        api_key=api_key(name, profile),
        temperature=profile.temperature,
        max_tokens=profile.max_tokens,
        timeout=profile.timeout_s,
        timeout_s=profile.timeout_s,
        max_retries=0,
        streaming=True,
        stream_usage=True,
    )


def classify(exc: BaseException) -> ErrorKind | None:
    if isinstance(exc, MalformedReply):
        return "fatal"
    if isinstance(exc, StreamCut | anthropic.APIConnectionError):
        return "transient"  # refused, reset, timed out (APITimeoutError), cut mid-answer
    if any(c.__name__ == "TransportError" for c in type(exc).__mro__):
        return "transient"  # httpx's or httpx2's, raised while reading the stream
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        return "transient" if status >= 500 or status in _TRANSIENT_STATUS else "fatal"
    return None


def endpoint(profile: LLMProfile) -> str:
    return profile.base_url or DEFAULT_BASE_URL


def context_window(profile: LLMProfile) -> int | None:
    return profile.context_window


def count_tokens(model: Callable[[], Any], messages: Sequence[Any], tools: Sequence[Any]) -> int:
    return estimate_tokens(messages, tools)
