"""The `ollama` provider: Ollama's native /api/chat endpoint via langchain-ollama.

ChatOllama always streams (NDJSON) even for `invoke`; `timeout_s` bounds each chunk and,
through `codur.models.deadline`, the whole reply. Errors surface in two forms: an HTTP status
(ollama.ResponseError with that status) or an `{"error": ...}` line in the middle of the
stream (ResponseError with status_code -1, e.g. the model runner crashed). In the
streaming path the ollama client does not wrap connection errors, so raw httpx errors
reach `classify` too.

langchain-ollama sends a tool result's `tool_call_id`, which the ollama client drops (its
Message has no such field), so the model cannot tell which tool a result came from.
`CodurChatOllama` adds Ollama's own `tool_name` to each tool message instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx
import ollama
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_ollama import ChatOllama

from codur.config.llm import require_key
from codur.config.schema import LLMProfile
from codur.models.base import ErrorKind, StreamCut, estimate_tokens
from codur.models.deadline import deadline_hooks
from codur.redaction import remember

DEFAULT_BASE_URL = "http://127.0.0.1:11434"
_IN_STREAM_ERROR = -1
"""ResponseError.status_code for an error reported inside a 200 stream."""


class CodurChatOllama(ChatOllama):
    """ChatOllama that names the tool in each tool-result message (`tool_name`), and
    calls a stream that ends without Ollama's `done` line a StreamCut (a connection
    closed mid-answer read as a whole reply)."""

    def _iterate_over_stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        done = False
        for chunk in super()._iterate_over_stream(*args, **kwargs):
            done = done or bool((chunk.generation_info or {}).get("done"))
            yield chunk
        if not done:
            raise StreamCut("the streamed reply ended before the server finished it")

    def _convert_messages_to_ollama_messages(self, messages: list[BaseMessage]) -> Sequence[Any]:
        converted = list(super()._convert_messages_to_ollama_messages(messages))
        names: dict[str, str] = {}
        for message, wire in zip(messages, converted, strict=True):
            if isinstance(message, AIMessage):
                names.update({c["id"]: c["name"] for c in message.tool_calls if c["id"]})
            elif isinstance(message, ToolMessage) and isinstance(wire, dict):
                tool_name = message.name or names.get(message.tool_call_id)
                if tool_name:
                    wire["tool_name"] = tool_name
        return converted


def build(name: str, profile: LLMProfile) -> CodurChatOllama:
    headers = {}
    if profile.api_key_env:  # a server behind a proxy that wants a key: sent as a bearer
        require_key(name, profile)
        key = os.environ[profile.api_key_env]
        remember([key])  # masked wherever it shows up
        headers["Authorization"] = f"Bearer {key}"
    return CodurChatOllama(
        model=profile.model,
        base_url=endpoint(profile),  # explicit, so OLLAMA_HOST cannot redirect it
        temperature=profile.temperature,
        num_predict=profile.max_tokens,
        seed=profile.seed,
        num_ctx=profile.context_window,  # None: the server's default window
        client_kwargs={
            "timeout": profile.timeout_s,
            "event_hooks": deadline_hooks(profile.timeout_s),
            "limits": httpx.Limits(max_keepalive_connections=0),
            "headers": headers,
        },
    )


def classify(exc: BaseException) -> ErrorKind | None:
    if isinstance(exc, httpx.TransportError | ConnectionError | StreamCut):
        return "transient"  # refused, reset, timed out, cut
    if isinstance(exc, json.JSONDecodeError):  # a web page: a wrong URL; else a line cut
        return "fatal" if exc.doc.lstrip().startswith("<") else "transient"
    if isinstance(exc, ollama.ResponseError):
        status = exc.status_code
        if status == _IN_STREAM_ERROR or status == 429 or status >= 500:
            return "transient"
        return "fatal"
    return None


def endpoint(profile: LLMProfile) -> str:
    return profile.base_url or DEFAULT_BASE_URL


def context_window(profile: LLMProfile) -> int | None:
    return profile.context_window


def count_tokens(model: Callable[[], Any], messages: Sequence[Any], tools: Sequence[Any]) -> int:
    return estimate_tokens(messages, tools)
