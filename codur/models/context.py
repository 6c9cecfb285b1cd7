"""Bounding a model call to `llm.max_context_tokens`: the prompt (its messages and the
tools' schemas) plus the reply budget never go over it.

Prompts Codur builds itself are fitted before this (the coder's, codur.agents.fit, sees
the bound as the window); what can still outgrow it (an agent's turns of tool results, a
long question) is cut here, the last step before the request goes out:

1. the reply budget is lowered, to no less than `MIN_REPLY` (or a quarter of the bound);
2. the oldest turns are left out, whole (a reply with tool calls goes with its results),
   keeping the system prompt, the task (the first other message) and the latest turn;
3. the longest text left is cut in its middle, with a line saying how much was left
   out, until the prompt fits; a prompt that cannot fit even so is a ConfigError.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codur.errors import ConfigError
from codur.models.base import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

MIN_REPLY = 256
"""The reply budget is not lowered below this (nor below a quarter of the bound)."""
KEEP_CHARS = 200
"""A message's text is never cut below this many characters."""

NOTE = "\n... ({:,} characters left out to fit llm.max_context_tokens) ...\n"
NOTE_MAX = len(NOTE.format(10**12))
"""The most characters the note put in a cut text takes (a cut must shrink the text)."""

Count = Callable[[Sequence["BaseMessage"]], int]


@dataclass(frozen=True)
class Bounded:
    """A call's messages and reply budget within the bound, and what it took."""

    messages: list[BaseMessage]
    reply: int
    tokens_before: int
    tokens_after: int
    dropped: int = 0
    """Messages left out (older turns)."""
    cut: int = 0
    """Messages whose text was cut in the middle."""

    @property
    def trimmed(self) -> bool:
        return self.dropped > 0 or self.cut > 0


def bound(messages: Sequence[BaseMessage], reply: int, limit: int, count: Count) -> Bounded:
    """`messages` (counted, with the call's tools, by `count`) and `reply` fitted into
    `limit` tokens; ConfigError when even the cut prompt does not fit."""
    kept = list(messages)
    before = count(kept)
    reply = min(reply, max(min(MIN_REPLY, limit // 4), limit - before))
    room = limit - reply
    tokens, dropped = before, 0
    head = _head(kept)
    while tokens > room and (turn := _oldest_turn(kept, head)):
        del kept[head : head + turn]
        dropped += turn
        tokens = count(kept)
    cut: set[int] = set()
    while tokens > room:
        index = _longest(kept)
        if index is None:
            raise ConfigError(
                f"llm.max_context_tokens ({limit}): too small for this call's prompt "
                f"({tokens} tokens, its text cut to the least) and a reply of {reply}"
            )
        kept[index] = _cut(kept[index], tokens - room)
        cut.add(index)
        tokens = count(kept)
    return Bounded(kept, reply, before, tokens, dropped, len(cut))


def _head(messages: list[BaseMessage]) -> int:
    """How many leading messages are always kept: the system prompt(s) and the task."""
    system = next((i for i, m in enumerate(messages) if m.type != "system"), len(messages))
    return min(system + 1, len(messages))


def _oldest_turn(messages: list[BaseMessage], head: int) -> int:
    """The length of the oldest turn after `head` (a reply with its tool results, or one
    message); 0 when it is the latest turn, which is always kept."""
    end = head + 1
    if messages[head : head + 1] and getattr(messages[head], "tool_calls", None):
        while end < len(messages) and messages[end].type == "tool":
            end += 1
    return end - head if end < len(messages) else 0


def _longest(messages: list[BaseMessage]) -> int | None:
    """The message with the longest text that can still be cut (None: none can)."""
    sizes = [
        (len(m.content), i)
        for i, m in enumerate(messages)
        if isinstance(m.content, str) and len(m.content) > KEEP_CHARS + NOTE_MAX
    ]
    return max(sizes)[1] if sizes else None


def _cut(message: BaseMessage, excess: int) -> BaseMessage:
    """`message` with the middle of its text left out: at least `excess` tokens' worth,
    and always more than the note saying so takes (the text shrinks)."""
    text = str(message.content)
    drop = min(len(text) - KEEP_CHARS, math.ceil(excess * CHARS_PER_TOKEN) + NOTE_MAX)
    keep = len(text) - drop
    head, tail = text[: keep - keep // 2], text[len(text) - keep // 2 :]
    note = NOTE.format(drop)
    return message.model_copy(update={"content": head + note + tail})
