"""A deadline for a whole HTTP model request, body included, and its cut on a cancel.

HTTP clients bound each read, not a request: a server that sends a byte every second
keeps a request alive forever under any read timeout. Here every request gets a watch:
the request's sockets are noted as they connect (httpcore's `trace` extension), and
when the deadline passes, or the run is cancelled meanwhile, they are shut down, so the
read in progress fails at once (the client reports a connection error; `ModelClient`
says the deadline passed, or raises Cancelled when the run was cancelled). The watch
stops when the response is closed. Connections are not kept alive between requests, so
a request's sockets are its own.

The cancel event is the one of the model call under way (`codur.models.cancel`), read
when the request starts. The watch thread waits on it in steps of `CANCEL_POLL_S` (a
`threading.Event` cannot wait together with the response's end), so a cancel cuts the
request at once and the watch of a finished request ends within that step.

Used by the HTTP providers (openai: httpx2 via the OpenAI SDK; ollama: httpx), whose
clients take `event_hooks`; the embedded model is cut between decodes instead
(codur.models.local_cancel).
"""

from __future__ import annotations

import contextlib
import importlib
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from codur.models.cancel import current_cancel

_CONNECTED = (".connect_tcp.complete", ".connect_unix_socket.complete", ".start_tls.complete")
_CLOSED = (".response_closed.complete", ".response_closed.failed")
CANCEL_POLL_S = 0.05
"""How long the watch waits on the cancel event before looking whether the response ended."""


class _Watch:
    """One request's deadline, cancel event and sockets."""

    def __init__(self, total_s: float, cancel: threading.Event | None) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._total_s = total_s
        self._cancel = cancel
        self._done = threading.Event()
        self._cut = False
        self._thread = threading.Thread(target=self._watch, name="codur-deadline", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            cut = self._cut
        if cut:  # connected after the deadline or the cancel
            _shut(sock)

    def done(self) -> None:
        """The response is closed: nothing left to cut."""
        self._done.set()

    def _watch(self) -> None:
        end = time.monotonic() + self._total_s
        while (left := end - time.monotonic()) > 0:
            if self._cancel is None:
                if self._done.wait(left):
                    return
            elif self._cancel.wait(min(left, CANCEL_POLL_S)):
                break
            if self._done.is_set():
                return
        if not self._done.is_set():
            self._shut_all()

    def _shut_all(self) -> None:
        with self._lock:
            self._cut = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed: the request ended by itself
        sock.shutdown(socket.SHUT_RDWR)


def deadline_hooks(total_s: float) -> dict[str, list[Callable[[Any], None]]]:
    """`event_hooks` for an httpx (or httpx2) client: every request must be complete
    within `total_s` seconds, and is cut when the run of the call is cancelled."""

    def on_request(request: Any) -> None:
        watch = _Watch(total_s, current_cancel())
        previous = request.extensions.get("trace")

        def trace(event: str, info: dict[str, Any]) -> None:
            if previous is not None:
                previous(event, info)
            if event.endswith(_CONNECTED):
                stream = info.get("return_value")
                sock = stream.get_extra_info("socket") if stream is not None else None
                if isinstance(sock, socket.socket):
                    watch.add(sock)
            elif event.endswith(_CLOSED):
                watch.done()

        request.extensions["trace"] = trace
        watch.start()

    return {"request": [on_request], "response": []}


def sdk_http_client(default: type, timeout_s: float) -> Any:
    """An SDK's own HTTP client class `default` (openai's or anthropic's
    DefaultHttpxClient, built on httpx or httpx2) with a deadline for each whole request
    and no kept-alive connections."""
    base = next(
        c for c in default.__mro__ if c.__name__ == "Client" and c.__module__.startswith("httpx")
    )
    http = importlib.import_module(base.__module__.split(".")[0])
    limits = http.Limits(max_connections=100, max_keepalive_connections=0)
    return default(event_hooks=deadline_hooks(timeout_s), limits=limits)
