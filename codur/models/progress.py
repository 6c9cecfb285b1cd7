"""A model call's progress while it runs: `model.progress` events, at most one a second.

`ModelClient` makes a `CallProgress` for each call and sets it in a context variable
around it (`reporting`), as it does the cancel event (codur.models.cancel). The provider
reports what it knows as it goes, and the tracker emits an event only when `every_s` has
passed since the call started or since its last event:

- the embedded model: prompt tokens evaluated, batch after batch, then the reply's tokens
  and text, decode after decode (codur.models.local_llama);
- the providers that stream (openai, ollama, scripted; LangChain's `on_llm_new_token`):
  each chunk of the reply's text or of a tool call, counted as a token (`callback`).

An event says the elapsed seconds, the prompt tokens evaluated so far (embedded model),
the reply's tokens so far and their rate since the first one, and the reply's text added
since the previous event (`text`, which `--verbose` streams).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from codur.events import PROGRESS_EVERY_S

__all__ = ["PROGRESS_EVERY_S", "CallProgress", "current_progress", "reporting"]


class CallProgress:
    """One model call's progress; `emit(**data)` sends a `model.progress` event."""

    def __init__(
        self,
        emit: Callable[..., None],
        every_s: float = PROGRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit, self._every_s, self._clock = emit, every_s, clock
        self._start = self._last = clock()
        self._first_token: float | None = None
        self._prompt: tuple[int, int] | None = None
        self._tokens = 0
        self._text: str | Callable[[], str] = ""
        self._sent = 0
        """Characters of the reply's text already sent in an event."""

    def prompt(self, done: int, total: int) -> None:
        """`done` of the `total` prompt tokens that need evaluating are evaluated."""
        self._prompt = (done, total)
        self._maybe_emit()

    def reply(self, tokens: int, text: str | Callable[[], str]) -> None:
        """The reply so far: `tokens` tokens, and its text (or how to get it, when that
        costs something: it is read only for an event)."""
        if tokens and self._first_token is None:
            self._first_token = self._clock()
        self._tokens, self._text = tokens, text
        self._maybe_emit()

    def chunk(self, text: str) -> None:
        """One more streamed chunk of the reply (a token, as servers stream them)."""
        so_far = self._text if isinstance(self._text, str) else self._text()
        self.reply(self._tokens + 1, so_far + text)

    def _maybe_emit(self) -> None:
        now = self._clock()
        if now - self._last < self._every_s:
            return
        self._last = now
        data: dict[str, Any] = {"elapsed_s": round(now - self._start, 1)}
        if self._prompt is not None:
            data["prompt_done"], data["prompt_total"] = self._prompt
        if self._first_token is not None:
            text = self._text if isinstance(self._text, str) else self._text()
            rate_s = now - self._first_token
            data["tokens"] = self._tokens
            data["tokens_per_s"] = round(self._tokens / rate_s, 1) if rate_s > 0 else None
            data["text"] = text[self._sent :]
            self._sent = len(text)
        self._emit(**data)

    def callback(self) -> Any:
        """A LangChain callback handler that counts streamed chunks into this call."""
        from langchain_core.callbacks import BaseCallbackHandler

        progress = self

        class _Chunks(BaseCallbackHandler):
            def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
                # a chunk of the reply's text or of a tool call's arguments; not one that
                # only says the role, the finish reason or the usage
                # (Anthropic's chunks hold content blocks: their text is the token)
                text = token if isinstance(token, str) else _block_text(token)
                if text or getattr(getattr(chunk, "message", None), "tool_call_chunks", None):
                    progress.chunk(text)

        return _Chunks()


def _block_text(blocks: Any) -> str:
    """The text of a chunk given as content blocks (`[{"type": "text", "text": ...}]`)."""
    if not isinstance(blocks, list):
        return ""
    return "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))


_PROGRESS: ContextVar[CallProgress | None] = ContextVar("codur_model_progress", default=None)


@contextmanager
def reporting(progress: CallProgress) -> Iterator[None]:
    """Model calls made inside (in this thread) report to `progress`."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def current_progress() -> CallProgress | None:
    """The progress of the model call under way in this thread (None: nobody listens)."""
    return _PROGRESS.get()
