"""The `openai` provider: any OpenAI-compatible chat-completions endpoint.

OpenAI itself, llama.cpp's server, LM Studio, vLLM and Ollama's /v1 endpoint all speak
this protocol, but the local servers are stricter than OpenAI about two things that
langchain-openai gets "wrong" for them, so `CompatChatOpenAI` adjusts the request payload:

- an assistant turn that only carries tool calls is sent with `"content": null`, which
  llama.cpp, LM Studio, vLLM and Ollama reject: it is sent as `""` instead;
- `max_tokens` is renamed to `max_completion_tokens`, which Ollama and older llama.cpp
  silently ignore (unbounded generation): other hosts than api.openai.com get `max_tokens`.

The reply is streamed (server-sent events, the usage in a last chunk: `stream_options`),
so each chunk reaches the call's progress (`model.progress`, codur.models.progress)
while the model generates. A stream with no chunk at all was no chat-completion stream
(an HTML page, `{}`: MalformedReply); one that ends before the server gave a finish
reason was cut (StreamCut, retried like a broken connection).

ModelClient does the retrying, so the OpenAI SDK's own retries are off.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any
from urllib.parse import urlparse

import httpx
import openai
from langchain_openai import ChatOpenAI

from codur.config.llm import require_key
from codur.config.schema import LLMProfile
from codur.models.base import ErrorKind, MalformedReply, StreamCut, estimate_tokens
from codur.models.deadline import sdk_http_client
from codur.redaction import remember

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PLACEHOLDER_KEY = "not-needed"
"""Sent when the profile names no key variable: local servers want none, but the SDK
insists on some key (and would otherwise read OPENAI_API_KEY behind our back)."""

_TRANSIENT_STATUS = {408, 429}


_NO_STREAM_OPTIONS: set[str] = set()
"""Servers (base URLs) that answered 400 to `stream_options` (some gateways and proxies
reject the parameter): their streams are asked for without it, so no token counts."""


class CompatChatOpenAI(ChatOpenAI):
    """ChatOpenAI whose chat-completions payload local OpenAI-compatible servers accept,
    and which calls an answer that is no chat completion (an HTML page, `{}`) a
    MalformedReply instead of failing somewhere inside langchain; a streamed answer too
    (`_stream`)."""

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        base = self.openai_api_base or DEFAULT_BASE_URL
        if base in _NO_STREAM_OPTIONS:
            kwargs["stream_usage"] = False
        try:
            yield from self._checked(*args, **kwargs)
        except openai.BadRequestError as exc:  # raised before any chunk: a clean retry
            if "stream_options" not in str(exc) or kwargs.get("stream_usage") is False:
                raise
            _NO_STREAM_OPTIONS.add(base)  # a gateway that rejects it: asked without
            yield from self._checked(*args, **{**kwargs, "stream_usage": False})

    def _checked(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        chunks, finished = 0, False
        for chunk in _hinted(super()._stream(*args, **kwargs), self.openai_api_base):
            chunks += 1
            finished = finished or bool((chunk.generation_info or {}).get("finish_reason"))
            yield chunk
        if not chunks:
            raise MalformedReply(
                "HTTP 200, but no chat-completion chunks in the stream; "
                "is base_url an OpenAI-compatible /v1?"
            )
        if not finished and not self._use_responses_api({**kwargs, **self.model_kwargs}):
            raise StreamCut("the streamed reply ended before the server finished it")

    def _create_chat_result(self, response: Any, generation_info: dict | None = None) -> Any:
        problem = malformed(response)
        if problem:
            raise MalformedReply(f"HTTP 200, but {problem}; is base_url an OpenAI-compatible /v1?")
        return super()._create_chat_result(response, generation_info)

    def _get_request_payload(
        self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        for message in payload.get("messages", ()):
            if message.get("role") == "assistant" and message.get("content") is None:
                message["content"] = ""
        if not _is_openai_host(self.openai_api_base) and "max_completion_tokens" in payload:
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        return payload


class ModelNotFound(Exception):
    """A 404 from a base_url with no API version in its path, told with the hint that
    the URL is the likely cause (fatal, as the 404 itself)."""


def _hinted(chunks: Iterator[Any], base_url: str | None) -> Iterator[Any]:
    """`chunks`; a 404 from a base_url whose path ends in no API version (`/v1`) is told
    as the wrong URL it most likely is (vLLM, llama.cpp's server and LM Studio serve
    /v1), not as the model missing."""
    try:
        yield from chunks
    except openai.NotFoundError as exc:
        path = urlparse(base_url or DEFAULT_BASE_URL).path.rstrip("/")
        if re.search(r"/v\d+\w*(/|$)", path):  # /v1, Gemini's /v1beta/openai
            raise
        raise ModelNotFound(
            f"{str(exc).strip().splitlines()[0]} (at {path}/chat/completions: is base_url an "
            "OpenAI-compatible API's root, ending in /v1?)"
        ) from exc


def malformed(response: Any) -> str | None:
    """What is wrong with a chat-completions answer (None: nothing)."""
    if isinstance(response, openai.BaseModel):
        response = response.model_dump()
    if not isinstance(response, dict):
        return f"not a JSON object: {str(response)[:80]!r}"
    if response.get("error"):
        return f"an error: {str(response['error'])[:200]}"
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        keys = sorted(k for k, v in response.items() if v is not None)
        return f"no choices in the answer (keys: {', '.join(keys) or 'none'})"
    if not all(isinstance(c, dict) and isinstance(c.get("message"), dict) for c in choices):
        return "a choice without a message"
    return None


def _is_openai_host(base_url: str | None) -> bool:
    host = urlparse(base_url or DEFAULT_BASE_URL).hostname or ""
    return host == "api.openai.com" or host.endswith(".openai.com")


def api_key(name: str, profile: LLMProfile) -> str:
    """The profile's API key from the environment variable it names (never from config)."""
    if not profile.api_key_env:
        return PLACEHOLDER_KEY
    require_key(name, profile)
    value = os.environ[profile.api_key_env]
    remember([value])  # masked wherever it shows up, whatever the variable's name
    return value


def build(name: str, profile: LLMProfile) -> CompatChatOpenAI:
    base_url = endpoint(profile)
    options: dict[str, Any] = {}
    if not _is_openai_host(base_url):
        # "OpenAI-compatible" means chat completions; never switch to the Responses API
        # because a local model's name happens to look like an OpenAI one.
        options["use_responses_api"] = False
    return CompatChatOpenAI(
        model=profile.model,
        base_url=base_url,
        api_key=api_key(name, profile),
        temperature=profile.temperature,
        seed=profile.seed,
        max_tokens=profile.max_tokens,
        streaming=True,
        stream_usage=True,  # the usage comes in the stream's last chunk
        timeout=profile.timeout_s,
        max_retries=0,
        http_client=sdk_http_client(openai.DefaultHttpxClient, profile.timeout_s),
        **options,
    )


def classify(exc: BaseException) -> ErrorKind | None:
    if isinstance(exc, MalformedReply | ModelNotFound):
        return "fatal"  # a web page or `{}`: the URL is wrong, asking again will not help
    if isinstance(exc, json.JSONDecodeError | StreamCut):
        return "transient"  # cut JSON or stream: the connection broke mid-answer
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return "transient"  # refused, reset, timed out (openai.APITimeoutError included)
    if isinstance(exc, openai.RateLimitError | openai.InternalServerError):
        return "transient"
    if isinstance(exc, openai.APIStatusError):
        return "transient" if exc.status_code in _TRANSIENT_STATUS else "fatal"
    if isinstance(exc, openai.APIError):  # an error event inside the stream (vLLM, OpenRouter)
        return "transient"
    return None


def endpoint(profile: LLMProfile) -> str:
    return profile.base_url or DEFAULT_BASE_URL


def context_window(profile: LLMProfile) -> int | None:
    return profile.context_window


def count_tokens(model: Callable[[], Any], messages: Sequence[Any], tools: Sequence[Any]) -> int:
    return estimate_tokens(messages, tools)
