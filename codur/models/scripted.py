"""The `scripted` provider: replays a file of responses in order (tests, reproducible demos).

The script is YAML (or JSON) holding a list; each item is either a string (the reply text)
or a mapping with `content`, `tool_calls: [{name, args}]` and `finish_reason` (`stop`, the
default; `length` for a reply cut by the output cap; `tool_calls`), or `{error: TEXT}`:
that call raises ScriptedFailure, an exception no provider classifies (as a client
library's unexpected error would), so it reaches the graph's error handler. Running past
the end is a fatal model error, so a test that makes more calls than it scripted fails
loudly.
A call's stop sequences end the reply's text where one first appears (the sequence left
out), as a server does. The reply's text streams to the call's callbacks word by word
(`on_llm_new_token`), with `token_delay_s` seconds before each word: a slow model, for
the live progress.
Per-call temperature and seed are ignored: the script decides. A resumed run goes on
with the response after the last one its checkpoint had used (`advance`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage

from codur.config.schema import LLMProfile
from codur.errors import Cancelled, ConfigError
from codur.models.base import ErrorKind, estimate_tokens
from codur.models.cancel import current_cancel

ITEM_KEYS = {"content", "tool_calls", "finish_reason"}
FAILURE = "scripted_failure"
"""The response_metadata key of an `{error: TEXT}` item."""
FINISH_REASONS = ("stop", "length", "tool_calls")


class ScriptExhausted(RuntimeError):
    """The model was called more times than the script has responses."""


class ScriptedFailure(RuntimeError):
    """A script's `{error: TEXT}` item: the call fails with an unclassified exception."""


_WORDS = re.compile(r"\s*\S+|\s+$")
"""A reply's streamed chunks: each word with the whitespace before it."""


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel with `bind_tools` (tools are ignored: the script decides)."""

    token_delay_s: float = 0.0
    """Seconds before each streamed word of a reply."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> Any:
        try:
            result = super()._generate(messages, stop=stop, **kwargs)
        except StopIteration:
            raise ScriptExhausted("the scripted model has no responses left") from None
        message = result.generations[0].message
        if FAILURE in message.response_metadata:
            raise ScriptedFailure(message.response_metadata[FAILURE])
        if stop and message.response_metadata.get("finish_reason") == "stop":
            message.content = until_stop(str(message.content), stop)
        cancel = current_cancel()  # a cancelled run cuts a slow reply, as llama.cpp's
        for word in _WORDS.findall(str(message.content)):
            if cancel is None:
                time.sleep(self.token_delay_s)
            elif cancel.wait(self.token_delay_s):
                raise Cancelled()
            if run_manager is not None:
                run_manager.on_llm_new_token(word)
        words = sum(len(str(m.content).split()) for m in messages)
        message.usage_metadata = {
            "input_tokens": words,
            "output_tokens": len(str(message.content).split()),
            "total_tokens": words + len(str(message.content).split()),
        }
        return result


def until_stop(text: str, stop: list[str]) -> str:
    """`text` up to the first of the `stop` sequences (left out), as servers end a reply."""
    ends = [i for i in (text.find(s) for s in stop if s) if i >= 0]
    return text[: min(ends)] if ends else text


def to_message(item: Any, index: int) -> AIMessage:
    """One script item as an AIMessage."""
    if isinstance(item, str):
        return AIMessage(content=item, response_metadata={"finish_reason": "stop"})
    if isinstance(item, dict) and set(item) == {"error"}:
        return AIMessage(content="", response_metadata={FAILURE: str(item["error"])})
    if not isinstance(item, dict) or not set(item) <= ITEM_KEYS:
        raise ConfigError(
            f"script item {index + 1}: expected text, {{error}} or "
            "{content, tool_calls, finish_reason}"
        )
    reason = item.get("finish_reason", "stop")
    if reason not in FINISH_REASONS:
        raise ConfigError(
            f"script item {index + 1}: finish_reason must be one of {', '.join(FINISH_REASONS)}"
        )
    listed = item.get("tool_calls") or []
    if not isinstance(listed, list):
        raise ConfigError(f"script item {index + 1}: tool_calls must be a list")
    calls, unreadable = [], []
    for n, c in enumerate(listed):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not c["name"]:
            raise ConfigError(f"script item {index + 1}: tool call {n + 1} has no name")
        args, key = c.get("args", {}), f"call_{index}_{n}"
        if isinstance(args, str):  # arguments as a server sent them, not JSON: unreadable
            unreadable.append({"name": c["name"], "args": args, "id": key, "error": _why(args)})
            continue
        if not isinstance(args, dict):
            raise ConfigError(f"script item {index + 1}: tool call {n + 1}: args must be a mapping")
        calls.append({"name": c["name"], "args": args, "id": key, "type": "tool_call"})
    return AIMessage(
        content=item.get("content", ""),
        tool_calls=calls,
        invalid_tool_calls=[{**u, "type": "invalid_tool_call"} for u in unreadable],
        response_metadata={"finish_reason": reason},
    )


def _why(args: str) -> str:
    """Why `args` are no JSON object, as json says it."""
    try:
        json.loads(args)
    except json.JSONDecodeError as exc:
        return str(exc)
    return "not an object"


def load_script(path: Path) -> list[AIMessage]:
    try:
        items = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot load script: {exc}") from None
    if not isinstance(items, list):
        raise ConfigError(f"{path}: a script is a list of responses")
    return [to_message(item, i) for i, item in enumerate(items)]


def from_messages(messages: list[AIMessage], token_delay_s: float = 0.0) -> ScriptedChatModel:
    iterator: Iterator[AIMessage] = iter(messages)
    return ScriptedChatModel(messages=iterator, token_delay_s=token_delay_s)


def build(name: str, profile: LLMProfile) -> ScriptedChatModel:
    if not profile.script:
        raise ConfigError(f"profile '{name}': provider 'scripted' needs `script: FILE`")
    script = load_script(Path(profile.script).expanduser())
    return from_messages(script, profile.token_delay_s)


def advance(model: ScriptedChatModel, calls: int) -> None:
    """Skip the first `calls` responses: a resumed run's profile had them answered already
    (before its last checkpoint), so the script goes on from there."""
    for _ in range(calls):
        next(model.messages, None)


def classify(exc: BaseException) -> ErrorKind | None:
    return "fatal" if isinstance(exc, ScriptExhausted) else None


def endpoint(profile: LLMProfile) -> str:
    return f"script {profile.script}"


def context_window(profile: LLMProfile) -> int | None:
    return profile.context_window


def count_tokens(model: Callable[[], Any], messages: Sequence[Any], tools: Sequence[Any]) -> int:
    return estimate_tokens(messages, tools)
