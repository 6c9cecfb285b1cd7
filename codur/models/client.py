"""ModelClient: the one place model calls go through.

It builds the profile's chat model once, binds tools, retries transient failures with
exponential backoff, turns provider errors into ModelUnreachable / ModelError naming the
profile and endpoint, enforces the run's LLM-call budget, and emits model.* events with
token counts and timings for the debug log and --verbose.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codur.errors import LimitReached, ModelError, ModelUnreachable
from codur.events import EventBus
from codur.models import provider

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage

    from codur.config.schema import LLMProfile


_MAX_TOKEN_FIELDS = ("max_tokens", "num_predict")
"""Output-cap fields of the chat models (OpenAI and local; Ollama)."""


@dataclass
class Usage:
    """Model calls and tokens spent so far in a run (shared by every client of the run)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    max_calls: int | None = None


@dataclass
class ModelClient:
    name: str
    profile: LLMProfile
    bus: EventBus
    usage: Usage = field(default_factory=Usage)
    sleep: Callable[[float], None] = time.sleep
    _model: BaseChatModel | None = None

    @property
    def model(self) -> BaseChatModel:
        if self._model is None:
            prov = provider(self.profile.provider)
            with self.bus.span(
                "model.load", profile=self.name, endpoint=prov.endpoint(self.profile)
            ):
                try:
                    self._model = prov.build(self.name, self.profile)
                except (ModelUnreachable, ModelError):
                    raise
                except OSError as exc:
                    raise ModelUnreachable(
                        f"profile '{self.name}' ({prov.endpoint(self.profile)}): {exc}"
                    ) from exc
        return self._model

    def variant(self, variation: int) -> BaseChatModel:
        """The model for the `variation`-th new attempt: retry temperature, another seed.

        Variation 0 is the profile as configured; providers without these fields are used
        as they are.
        """
        fields = type(self.model).model_fields
        if variation == 0 or "temperature" not in fields:
            return self.model
        update: dict[str, Any] = {"temperature": self.profile.retry_temperature}
        if "seed" in fields:
            update["seed"] = self.profile.seed + variation
        return self.model.model_copy(update=update)

    def invoke(
        self,
        messages: Sequence[BaseMessage],
        tools: Sequence[Any] = (),
        variation: int = 0,
        max_tokens: int | None = None,
    ) -> AIMessage:
        """One model call (with retries); returns the AIMessage.

        `variation` > 0 asks for a differently sampled answer (see `variant`);
        `max_tokens` lowers the profile's output cap for this call (a reply that runs on
        past what the answer can need is a model stuck repeating itself).
        """
        if self.usage.max_calls is not None and self.usage.calls >= self.usage.max_calls:
            raise LimitReached(f"LLM call limit reached ({self.usage.max_calls} calls)")
        model = self.variant(variation)
        cap_field = next((f for f in _MAX_TOKEN_FIELDS if f in type(model).model_fields), None)
        if max_tokens is not None and cap_field and max_tokens < self.profile.max_tokens:
            model = model.model_copy(update={cap_field: max_tokens})
        model = model.bind_tools(list(tools)) if tools else model
        prov = provider(self.profile.provider)
        self.usage.calls += 1
        self.bus.emit(
            "model.request",
            profile=self.name,
            call=self.usage.calls,
            variation=variation,
            messages=[_render(m) for m in messages],
            tools=[getattr(t, "name", str(t)) for t in tools],
        )
        delay = self.profile.retry_backoff_s
        for attempt in range(self.profile.max_retries + 1):
            start = time.perf_counter()
            try:
                reply = model.invoke(list(messages))
                break
            except Exception as exc:  # classified below; anything unknown re-raises
                kind = prov.classify(exc)
                reason = _reason(exc)
                if kind is None:
                    raise
                where = f"profile '{self.name}' at {prov.endpoint(self.profile)}"
                if kind == "fatal":
                    raise ModelError(f"{where}: {reason}") from exc
                if attempt == self.profile.max_retries:
                    raise ModelUnreachable(
                        f"{where}: {reason} (gave up after {attempt + 1} attempts)"
                    ) from exc
                self.bus.emit(
                    "model.retry",
                    profile=self.name,
                    attempt=attempt + 1,
                    error=reason,
                    delay_s=delay,
                )
                self.sleep(delay)
                delay *= 2
        usage = getattr(reply, "usage_metadata", None) or {}
        prompt_tokens = int(usage.get("input_tokens", 0))
        completion_tokens = int(usage.get("output_tokens", 0))
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        self.bus.emit(
            "model.response",
            profile=self.name,
            call=self.usage.calls,
            content=reply.content,
            tool_calls=[{"name": c["name"], "args": c["args"]} for c in reply.tool_calls],
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            duration_s=round(time.perf_counter() - start, 3),
        )
        return reply


def _render(message: BaseMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.type, "content": message.content}
    if getattr(message, "tool_calls", None):
        out["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in message.tool_calls]
    return out


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
