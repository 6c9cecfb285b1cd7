"""What a provider module offers (a Protocol satisfied by the module itself), and the
token estimate providers without a tokenizer of their own use."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

    from codur.config.schema import LLMProfile

ErrorKind = Literal["transient", "fatal"]


class MalformedReply(Exception):
    """The server answered, but not in its protocol (an HTML page, `{}`, no choices)."""


class StreamCut(Exception):
    """A streamed reply ended before the server said why it stopped (no finish or stop
    reason, no `done`): the connection closed mid-answer; retried like a broken one."""


CHARS_PER_TOKEN = 3.5
"""The estimate's ratio: BPE tokenizers of current code models average 3-4 characters a
token over code and English (Qwen2.5: see `estimate_tokens`)."""


class Provider(Protocol):
    def build(self, name: str, profile: LLMProfile) -> BaseChatModel:
        """A chat model for `profile`; tool calling via `bind_tools` like every provider."""

    def classify(self, exc: BaseException) -> ErrorKind | None:
        """transient: retry with backoff (connection, timeout, 429, 5xx); fatal: a provider
        error retrying won't fix (4xx); None: not a provider error, let it propagate."""

    def endpoint(self, profile: LLMProfile) -> str:
        """Where the model lives (URL or file), for error messages."""

    def context_window(self, profile: LLMProfile) -> int | None:
        """Tokens the model attends to (prompt plus reply); None when unknown."""

    def count_tokens(
        self,
        model: Callable[[], BaseChatModel],
        messages: Sequence[BaseMessage],
        tools: Sequence[Any],
    ) -> int:
        """Prompt tokens of a call with `messages` and `tools`: exact where the provider has
        the model's tokenizer (`model()` loads it), else `estimate_tokens`."""


def estimate_tokens(messages: Sequence[BaseMessage], tools: Sequence[Any] = ()) -> int:
    """Prompt tokens estimated without a tokenizer: the characters of each message (its
    text and its tool calls as JSON) and of the tools' JSON schemas, divided by
    CHARS_PER_TOKEN and rounded up. Chat-format tokens (roles, separators) are not
    counted. Against Qwen2.5's real counts for the coder prompts of the 20 challenges
    (bench/local_tokens.py) it was off by -1% on average, from -22% to +18%: leave a
    quarter of the window as margin when fitting a prompt by the estimate."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    chars = sum(len(json.dumps(convert_to_openai_tool(t))) for t in tools)
    for message in messages:
        content = message.content
        if isinstance(content, str):
            chars += len(content)
        else:
            chars += sum(len(c if isinstance(c, str) else str(c.get("text", ""))) for c in content)
        calls = getattr(message, "tool_calls", None) or []
        chars += sum(len(json.dumps({"name": c["name"], "args": c["args"]})) for c in calls)
    return math.ceil(chars / CHARS_PER_TOKEN)
