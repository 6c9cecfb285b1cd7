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
"""Characters of a request's last message named in a mismatch."""


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

    def answer(self, key: str, messages: Sequence[BaseMessage], profile: str) -> AIMessage:
        """The recorded response to the next request, if its key is `key`."""
        number = self.cursor + 1
        asked = f"request {number} ({describe(profile, [render(m) for m in messages])})"
        if self.cursor >= len(self.calls):
            raise ReplayMismatch(
                f"--replay {self.path}: {asked} is past the recording's end "
                f"({len(self.calls)} requests)"
            )
        entry = self.calls[self.cursor]
        if entry["key"] != key:
            held = describe(entry.get("profile", "?"), entry["request"]["messages"])
            raise ReplayMismatch(
                f"--replay {self.path}: {asked} is not in the recording "
                f"(its request {number} is {held})"
            )
        self.cursor += 1
        return to_message(entry["response"])


def describe(profile: str, messages: list[dict[str, Any]]) -> str:
    """A request in a few words: its profile, size and the start of its last message."""
    last = messages[-1] if messages else {"role": "?", "content": ""}
    text = " ".join(str(last.get("content", "")).split())
    text = text if len(text) <= EXCERPT else text[: EXCERPT - 3] + "..."
    return f"profile {profile}, {len(messages)} messages, last {last.get('role')}: {text!r}"


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
        message = self.recording.answer(key, messages, self.profile)
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
