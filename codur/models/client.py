"""ModelClient: the one place model calls go through.

It builds the profile's chat model once, applies per-call sampling (temperature, seed,
output cap), binds tools, retries transient failures with exponential backoff, turns
provider errors into ModelUnreachable / ModelError naming the profile and endpoint,
enforces the run's LLM-call budget, hands a call to another profile when the model
cannot be reached (`fallback`: llm.fallback_order), and emits model.* events with token
counts, cached prompt tokens, the finish reason and timings for the debug log and
--verbose. It also offers the primitives for fitting a prompt: `context_window` and
`count_tokens`; with `max_context_tokens` (llm.max_context_tokens) every call is bounded
to it before it goes out (codur.models.context), logged as `model.trimmed` when cut.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codur.errors import (
    Cancelled,
    CodurError,
    LimitReached,
    MissingKey,
    ModelError,
    ModelUnreachable,
)
from codur.events import EventBus
from codur.models import provider
from codur.models.call_log import counted, error_line, rendered, response_fields
from codur.models.cancel import cancelling
from codur.models.per_call import configured
from codur.models.progress import PROGRESS_EVERY_S, CallProgress, reporting
from codur.models.recording import tool_names
from codur.models.retry import Transient, retry_after, retrying
from codur.models.usage import Usage
from codur.redaction import password_hidden

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage

    from codur.config.schema import LLMProfile
    from codur.models.base import Provider
    from codur.models.recording import Recorder
    from codur.promptbook import PromptBook


@dataclass
class ModelClient:
    name: str
    profile: LLMProfile
    bus: EventBus
    usage: Usage = field(default_factory=Usage)
    sleep: Callable[[float], None] = time.sleep
    built: dict[str, BaseChatModel] = field(default_factory=dict)
    """Chat models already built, by profile name: shared by the runs of a `codur chat`
    session, so a model loads once (and a scripted one goes on with its script)."""
    replay: Provider | None = None
    """Answers every request instead of the profile's provider (`--replay`)."""
    recorder: Recorder | None = None
    """Records every request and response (`--record`)."""
    fallback: Callable[[str, CodurError], ModelClient | None] | None = None
    """Called when this profile's model cannot be reached or loaded: the client of the
    profile that answers instead (`llm.fallback_order`), or None (the error stands)."""
    cancel: threading.Event | None = None
    """Set: the run was cancelled (`Session.cancel`); no call starts, a call under way is
    cut (codur.models.cancel: the embedded model stops before its next decode, an HTTP
    request's sockets are shut) and whatever it returns is dropped (Cancelled)."""
    prompts: PromptBook | None = None
    """The run's prompts, given to a chat model that words part of a call itself (one
    with a `prompts` field: the embedded model describes the tools in its own prompt)."""
    max_context_tokens: int | None = None
    """llm.max_context_tokens: the most tokens a call may take, prompt and reply; the
    window prompts are fitted into is at most this (None: the profile's window alone)."""
    progress_every_s: float = PROGRESS_EVERY_S
    """The least time between two `model.progress` events of a call (codur.models.progress)."""
    _model: BaseChatModel | None = None
    _instead: ModelClient | None = None
    """The client answering for this one since its model was found unreachable."""

    @property
    def backend(self) -> Provider:
        """Who serves the profile: the replay when replaying, else the profile's provider
        (the one place the choice is made)."""
        return self.replay if self.replay is not None else provider(self.profile.provider)

    @property
    def model(self) -> BaseChatModel:
        if self._model is None:
            self._model = self.built.get(self.name)
        if self._model is None:
            prov = self.backend
            endpoint = prov.endpoint(self.profile)
            with self.bus.span("model.load", profile=self.name, endpoint=endpoint):
                try:
                    self._model = prov.build(self.name, self.profile)
                except (ModelUnreachable, ModelError):
                    raise
                except MissingKey as exc:  # its API key is not set...
                    if self.fallback is None:
                        raise
                    raise ModelUnreachable(str(exc)) from exc  # ...llm.fallback_order's turn
                except OSError as exc:
                    raise ModelUnreachable(f"profile '{self.name}' ({endpoint}): {exc}") from exc
            answered = self.usage.by_profile.get(self.name, 0)
            advance = getattr(prov, "advance", None)  # optional: see models/__init__.py
            if answered and advance is not None:
                advance(self._model, answered)
            self.built[self.name] = self._model
        return self._model

    @property
    def context_window(self) -> int | None:
        """Tokens the model attends to (prompt plus reply); None when unknown."""
        if self._instead is not None:
            return self._instead.context_window
        window = self.backend.context_window(self.profile)
        bound = self.max_context_tokens
        return bound if window is None else window if bound is None else min(window, bound)

    def _switch(self, error: CodurError) -> ModelClient | None:
        """The client that answers instead of this unreachable one (None: none does)."""
        if self._instead is None and self.fallback is not None:
            self._instead = self.fallback(self.name, error)
        return self._instead

    def count_tokens(self, messages: Sequence[BaseMessage], tools: Sequence[Any] = ()) -> int:
        """Prompt tokens of `invoke(messages, tools)`: the model's own tokenizer for the
        embedded model (loads it), an estimate elsewhere (`codur.models.base`)."""
        if self._instead is not None:
            return self._instead.count_tokens(messages, tools)
        try:
            model = lambda: configured(self.model, self.prompts, {})  # noqa: E731
            count = self.backend.count_tokens(model, messages, tools)
        except (ModelUnreachable, ModelError) as exc:  # the embedded model did not load
            other = self._switch(exc)
            if other is None:
                raise
            return other.count_tokens(messages, tools)
        if self.recorder is not None:
            self.recorder.tokens(messages, tool_names(tools), count)
        return count

    def sampling(self, attempt: int) -> dict[str, Any]:
        """`invoke` settings for the `attempt`-th try at the same request: the profile's
        temperature and seed for attempt 0, then `retry_temperature` and seed + attempt, so
        each new attempt samples a different answer instead of repeating a failed one."""
        if attempt <= 0:
            return {"temperature": self.profile.temperature, "seed": self.profile.seed}
        return {"temperature": self.profile.retry_temperature, "seed": self.profile.seed + attempt}

    def invoke(
        self,
        messages: Sequence[BaseMessage],
        tools: Sequence[Any] = (),
        *,
        temperature: float | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
        stop: Sequence[str] = (),
    ) -> AIMessage:
        """One model call (with retries); returns the AIMessage.

        `temperature` and `seed` replace the profile's for this call (see `sampling`);
        `max_tokens` lowers the profile's output cap for this call (a reply that runs on
        past what the answer can need is a model stuck repeating itself). None keeps the
        profile's value. `finish_reason(reply)` says whether the cap cut the reply. `stop`:
        texts that end the reply where they appear (left out of it, as servers do). A
        model that cannot be reached or loaded hands the call to `fallback`'s client.
        """
        settings = {
            "temperature": temperature,
            "seed": seed,
            "max_tokens": max_tokens,
            "stop": stop,
        }
        if self._instead is not None:
            return self._instead.invoke(messages, tools, **settings)
        try:
            return self._invoke(messages, tools, **settings)
        except (ModelUnreachable, ModelError) as exc:
            other = self._switch(exc)
            if other is None:
                raise
            return other.invoke(messages, tools, **settings)

    def _invoke(
        self,
        messages: Sequence[BaseMessage],
        tools: Sequence[Any],
        *,
        temperature: float | None,
        seed: int | None,
        max_tokens: int | None,
        stop: Sequence[str],
    ) -> AIMessage:
        self._check_cancelled()
        if self.usage.max_calls is not None and self.usage.calls >= self.usage.max_calls:
            raise LimitReached(f"LLM call limit reached ({self.usage.max_calls} calls)")
        settings: dict[str, Any] = {
            "temperature": self.profile.temperature if temperature is None else temperature,
            "seed": self.profile.seed if seed is None else seed,
            "max_tokens": self.profile.max_tokens
            if max_tokens is None
            else min(max_tokens, self.profile.max_tokens),
        }
        if self.max_context_tokens is not None:
            messages, settings["max_tokens"] = self._bounded(messages, tools, settings)
        model = configured(self.model, self.prompts, settings)
        model = model.bind_tools(list(tools)) if tools else model
        prov = self.backend
        self.usage.calls += 1
        self.usage.by_profile[self.name] = self.usage.by_profile.get(self.name, 0) + 1
        self.bus.emit(
            "model.request",
            profile=self.name,
            call=self.usage.calls,
            **settings,
            messages=[rendered(m) for m in messages],
            tools=tool_names(tools),
            stop=list(stop),
        )
        where = f"profile '{self.name}' at {password_hidden(prov.endpoint(self.profile))}"
        attempts = self.profile.max_retries + 1
        retries = retrying(attempts, self.profile.retry_backoff_s, self._pause, self._retried)
        try:
            reply, duration_s = retries(self._attempt, model, messages, where, stop)
        except Transient as exc:
            raise ModelUnreachable(
                f"{where}: {exc.reason} (gave up after {attempts} attempts)"
            ) from exc.__cause__
        self._check_cancelled()  # cancelled while the model answered: the answer is dropped
        tokens = counted(reply, self.usage)
        fields = response_fields(reply, tokens, duration_s)
        self.bus.emit("model.response", profile=self.name, call=self.usage.calls, **fields)
        if self.recorder is not None:
            self.recorder.call(self.name, messages, tool_names(tools), settings, reply)
        return reply

    def _bounded(
        self, messages: Sequence[BaseMessage], tools: Sequence[Any], settings: dict[str, Any]
    ) -> tuple[list[BaseMessage], int]:
        """The call's messages and reply budget within `max_context_tokens`."""
        from codur.models.context import bound

        assert self.max_context_tokens is not None
        count = lambda m: self.count_tokens(m, tools)  # noqa: E731
        fitted = bound(messages, settings["max_tokens"], self.max_context_tokens, count)
        if fitted.trimmed:
            self.bus.emit(
                "model.trimmed",
                profile=self.name,
                max_context_tokens=self.max_context_tokens,
                tokens_before=fitted.tokens_before,
                tokens_after=fitted.tokens_after,
                dropped_messages=fitted.dropped,
                cut_messages=fitted.cut,
                max_tokens=fitted.reply,
            )
        return fitted.messages, fitted.reply

    def _progress_sink(self) -> Callable[..., None]:
        """Where the call under way sends its progress: `model.progress` events."""
        call = self.usage.calls
        return lambda **data: self.bus.emit("model.progress", profile=self.name, call=call, **data)

    def _attempt(
        self,
        model: BaseChatModel,
        messages: Sequence[BaseMessage],
        where: str,
        stop: Sequence[str] = (),
    ) -> tuple[AIMessage, float]:
        """One try at the call: the reply and the seconds it took; Transient when another
        try may succeed, ModelError when none can, the error itself when it is no
        provider's."""
        start = time.perf_counter()
        progress = CallProgress(self._progress_sink(), self.progress_every_s)
        try:
            with cancelling(self.cancel), reporting(progress):
                config = {"callbacks": [progress.callback()]}
                reply = model.invoke(list(messages), config, stop=list(stop) or None)
            return reply, time.perf_counter() - start
        except Exception as exc:  # classified below; anything unknown re-raises
            self._check_cancelled()  # the call was cut by the cancel: no retry
            kind = self.backend.classify(exc)
            reason = error_line(exc)
            if kind is None:
                raise
            if kind == "fatal":
                raise ModelError(f"{where}: {reason}") from exc
            if time.perf_counter() - start >= self.profile.timeout_s:
                reason = f"no complete answer within {self.profile.timeout_s:g} s (timeout_s)"
            raise Transient(reason, retry_after(exc)) from exc

    def _retried(self, attempt: int, reason: str, delay_s: float) -> None:
        self.bus.emit(
            "model.retry", profile=self.name, attempt=attempt, error=reason, delay_s=delay_s
        )

    def _pause(self, delay_s: float) -> None:
        """Wait before the next try; a cancel wakes it and ends the call (Cancelled)."""
        real = self.cancel is not None and self.sleep is time.sleep
        (self.cancel.wait if real else self.sleep)(delay_s)
        self._check_cancelled()

    def _check_cancelled(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()
