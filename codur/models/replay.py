"""Replay (`--replay FILE`): a provider that answers every model request from a recording
(`codur.models.recording`) instead of a model, so a recorded run can be run again with no
model loaded, no server and no key.

Requests are matched by content, in order: the run's N-th request must have the key
(messages, tools, params) of the recording's N-th call, and gets its response (content,
tool calls, usage, finish reason). The first request that does not match, or one past the
recording's end, stops the run with `ReplayMismatch` (exit code 8) naming it. Prompts are
fitted with the token counts the recording holds (an estimate for a prompt it does not).

`Replay` is a provider object (the `Provider` protocol of `codur.models.base`), chosen by
`ModelClient` in place of the profile's provider when `runs.replay` is set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from codur.errors import ReplayMismatch
from codur.models import provider
from codur.models.base import ErrorKind, estimate_tokens
from codur.models.recording import read_lines, render, request_key, tokens_key, tool_names

EXCERPT = 60
"""Characters around the first difference shown in a mismatch."""


@dataclass
class Recording:
    """A recording read back: its calls in order, the token counts, and how far the run
    has got through the calls."""

    path: Path
    calls: list[dict[str, Any]]
    tokens: dict[str, int]
    cursor: int = 0
    """Calls answered so far (a resumed run starts after the calls made before it)."""
    profiles: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, path: Path, start: int = 0) -> Recording:
        lines = read_lines(path)
        calls = [line for line in lines if line["kind"] == "call"]
        tokens = {line["key"]: int(line["tokens"]) for line in lines if line["kind"] == "tokens"}
        return cls(path, calls, tokens, start)

    def answer(self, key: str, request: dict[str, Any], profile: str) -> AIMessage:
        """The recorded response to the next request, if its key is `key` (`request`:
        the request as recorded, to say how it differs)."""
        number = self.cursor + 1
        asked = f"request {number} (profile {profile}, {len(request['messages'])} messages)"
        if self.cursor >= len(self.calls):
            raise ReplayMismatch(
                f"--replay {self.path}: {asked} is past the recording's end "
                f"({len(self.calls)} requests)"
            )
        entry = self.calls[self.cursor]
        if entry["key"] != key:
            raise ReplayMismatch(
                f"--replay {self.path}: {asked} is not in the recording: "
                f"{difference(request, entry['request'])}"
            )
        self.cursor += 1
        return to_message(entry["response"])


def difference(asked: dict[str, Any], held: dict[str, Any]) -> str:
    """Where a request first differs from the recorded one, in a line."""
    for name in ("temperature", "seed", "max_tokens"):
        if asked.get(name) != held.get(name):
            return f"{name} {asked.get(name)} where the recording has {held.get(name)}"
    if asked["tools"] != held.get("tools"):
        return f"tools {asked['tools']} where the recording has {held.get('tools')}"
    mine, theirs = asked["messages"], held.get("messages", [])
    for n, (a, b) in enumerate(zip(mine, theirs, strict=False), 1):
        if a != b:
            x, y = _text(a), _text(b)
            at = next((i for i, (c, d) in enumerate(zip(x, y, strict=False)) if c != d), None)
            at = min(len(x), len(y)) if at is None else at
            start = max(0, at - EXCERPT // 3)
            return (
                f"message {n} ({a.get('role')}) differs at character {at}: "
                f"{x[start : start + EXCERPT]!r} where the recording has "
                f"{y[start : start + EXCERPT]!r}"
            )
    return f"{len(mine)} messages where the recording has {len(theirs)}"


def _text(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, sort_keys=True)


def to_message(recorded: dict[str, Any]) -> AIMessage:
    """A recorded response as the AIMessage the model returned."""
    calls = [
        {"name": c["name"], "args": c["args"], "id": c.get("id") or f"replay_{n}"}
        for n, c in enumerate(recorded.get("tool_calls") or [])
    ]
    meta = dict(recorded.get("response_metadata") or {})
    if recorded.get("finish_reason") and "finish_reason" not in meta:
        meta["finish_reason"] = recorded["finish_reason"]
    message = AIMessage(content=recorded.get("content", ""), tool_calls=calls)
    message.response_metadata = meta
    if recorded.get("usage"):
        message.usage_metadata = recorded["usage"]
    return message


class ReplayChatModel(BaseChatModel):
    """A chat model whose answers come from a recording (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    recording: Recording
    profile: str
    temperature: float | None = None
    seed: int | None = None
    max_tokens: int | None = None
    tools: tuple[str, ...] = ()

    @property
    def _llm_type(self) -> str:
        return "codur-replay"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ReplayChatModel:
        return self.model_copy(update={"tools": tuple(tool_names(tools))})

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        params = {"temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}
        key = request_key(messages, self.tools, params)
        request = {"messages": [render(m) for m in messages], "tools": list(self.tools), **params}
        message = self.recording.answer(key, request, self.profile)
        return ChatResult(generations=[ChatGeneration(message=message)])


@dataclass
class Replay:
    """The replay provider: every profile's requests answered from one recording."""

    recording: Recording

    def build(self, name: str, profile: Any) -> ReplayChatModel:
        return ReplayChatModel(recording=self.recording, profile=name)

    def classify(self, exc: BaseException) -> ErrorKind | None:
        return None  # a mismatch is final and typed: it propagates as it is

    def endpoint(self, profile: Any) -> str:
        return f"recording {self.recording.path}"

    def context_window(self, profile: Any) -> int | None:
        return provider(profile.provider).context_window(profile)

    def count_tokens(
        self,
        model: Callable[[], BaseChatModel],
        messages: Sequence[BaseMessage],
        tools: Sequence[Any],
    ) -> int:
        counted = self.recording.tokens.get(tokens_key(messages, tool_names(tools)))
        return counted if counted is not None else estimate_tokens(messages, tools)
