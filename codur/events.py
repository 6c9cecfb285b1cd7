"""The event bus: nodes and runners emit events; the debug log and the UI subscribe.

Nothing that emits an event prints. `ui.IO` decides how events look on the terminal and
`log.JsonlLog` writes them to the debug log, so `--verbose` and the log show the same steps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

EVENT_SCHEMA = 1
"""The version of the `--json` event lines (each line's `schema`; docs/events.md): raised
when an event's existing field changes meaning or goes away, not when one is added."""


@dataclass(frozen=True)
class Event:
    """One step of a run: `kind` is dotted (model.request, node.end, verify.run, ...)."""

    kind: str
    data: dict[str, Any]
    ts: float = field(default_factory=time.time)


Sink = Callable[[Event], None]

PROGRESS_EVERY_S = 1.0
"""The least time between two progress events of one thing running (a model call, a
check's program, the repair search)."""


class EventBus:
    """Fan-out of events to subscribed sinks, in subscription order."""

    def __init__(self) -> None:
        self._sinks: list[Sink] = []

    def subscribe(self, sink: Sink) -> None:
        self._sinks.append(sink)

    def emit(self, kind: str, **data: Any) -> None:
        event = Event(kind, data)
        for sink in self._sinks:
            sink(event)

    def tagged(self, **tags: Any) -> EventBus:
        """A bus whose events reach this one's sinks with `tags` added (e.g. by=verify)."""
        child = EventBus()
        child.subscribe(lambda e: self.emit(e.kind, **e.data, **tags))
        return child

    @contextmanager
    def span(self, kind: str, **data: Any) -> Iterator[dict[str, Any]]:
        """Emit `<kind>.start`, then `<kind>.end` with duration_s (and error, if raised).

        The yielded dict is merged into the end event, so the body can report results.
        """
        self.emit(f"{kind}.start", **data)
        extra: dict[str, Any] = {}
        start = time.perf_counter()
        try:
            yield extra
        except BaseException as exc:
            extra["error"] = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            self.emit(
                f"{kind}.end", **data, **extra, duration_s=round(time.perf_counter() - start, 3)
            )


class Ticker:
    """The progress events of one thing running: `tick(**data)` emits `kind` with the
    seconds since it started (`elapsed_s`) and `data`, unless `every_s` has not passed
    since the start or the previous event. Call it as often as convenient."""

    def __init__(
        self,
        bus: EventBus,
        kind: str,
        every_s: float = PROGRESS_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bus, self._kind, self._every_s, self._clock = bus, kind, every_s, clock
        self._start = self._last = clock()

    def __call__(self, **data: Any) -> None:
        now = self._clock()
        if now - self._last < self._every_s:
            return
        self._last = now
        self._bus.emit(self._kind, elapsed_s=round(now - self._start, 1), **data)
