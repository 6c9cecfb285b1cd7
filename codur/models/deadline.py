"""A deadline for a whole HTTP model request, body included.

HTTP clients bound each read, not a request: a server that sends a byte every second
keeps a request alive forever under any read timeout. Here every request gets a timer:
the request's sockets are noted as they connect (httpcore's `trace` extension), and
when the deadline passes they are shut down, so the read in progress fails at once (the
client reports a connection error, and `ModelClient` says the deadline passed). The
timer stops when the response is closed. Connections are not kept alive between
requests, so a request's sockets are its own.

Used by the HTTP providers (openai: httpx2 via the OpenAI SDK; ollama: httpx), whose
clients take `event_hooks`; the embedded model has no connection to cut.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from typing import Any

_CONNECTED = (".connect_tcp.complete", ".connect_unix_socket.complete", ".start_tls.complete")
_CLOSED = (".response_closed.complete", ".response_closed.failed")


class _Watch:
    """One request's timer and sockets."""

    def __init__(self, total_s: float) -> None:
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(total_s, self._expire)
        self._timer.daemon = True
        self._expired = False

    def start(self) -> None:
        self._timer.start()

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self._expired
        if expired:  # connected after the deadline
            _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            self._expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed: the request ended by itself
        sock.shutdown(socket.SHUT_RDWR)


def deadline_hooks(total_s: float) -> dict[str, list[Callable[[Any], None]]]:
    """`event_hooks` for an httpx (or httpx2) client: every request must be complete
    within `total_s` seconds."""

    def on_request(request: Any) -> None:
        watch = _Watch(total_s)
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
                watch.cancel()

        request.extensions["trace"] = trace
        watch.start()

    return {"request": [on_request], "response": []}
