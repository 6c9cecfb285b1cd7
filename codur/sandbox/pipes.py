"""A program's pipes, served from one thread against a clock: its output read up to a cap,
its input written as it takes it, and nothing that waits for an end of file the program's
descendants can put off forever (a descendant that left the session keeps the write end
of the output pipe for as long as it lives).

`Pipes.serve` returns when the program ends, its time is up, the run is cancelled or its
output passes the cap; `Pipes.drain` then reads what is left, for a short grace at most.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Literal

CHUNK = 65536
POLL_S = 0.1
"""How often the wait looks whether the run was cancelled, reports the program's
progress (and looks whether it ended, where the OS cannot tell at once: no pidfd)."""

Ending = Literal["ended", "timeout", "cancelled", "flooded"]


class Pipes:
    """The stdout and stderr of `proc` (and its stdin, when `stdin` is given), kept in
    buffers of at most `limit` bytes each."""

    def __init__(self, proc: subprocess.Popen[bytes], stdin: bytes | None, limit: int) -> None:
        self.proc = proc
        self.limit = limit
        self.buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
        self.flooded = False
        self._selector = selectors.DefaultSelector()
        for name in self.buffers:
            self._selector.register(getattr(proc, name), selectors.EVENT_READ, name)
        self._exit = _pidfd(proc.pid)
        if self._exit is not None:  # readable when the program ends
            self._selector.register(self._exit, selectors.EVENT_READ, "exit")
        self._input = memoryview(stdin or b"")
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            if self._input:
                self._selector.register(proc.stdin, selectors.EVENT_WRITE, "stdin")
            else:
                proc.stdin.close()

    def serve(
        self,
        timeout_s: float,
        cancel: threading.Event | None,
        tick: Callable[[], None] | None = None,
    ) -> Ending:
        """Move data until the program ends (whoever still holds its output),
        `timeout_s` passes, `cancel` is set or the output passes the cap; `tick` is
        called every POLL_S at least while the program runs (its progress)."""
        deadline = time.monotonic() + timeout_s
        while True:
            if cancel is not None and cancel.is_set():
                return "cancelled"
            if self.proc.poll() is not None:
                return "ended"
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout"
            if tick is not None:
                tick()
            # the end wakes the wait; a cancel or a tick needs a look every POLL_S
            told = self._exit is not None and cancel is None and tick is None
            self._step(left if told else min(left, POLL_S))
            if self.flooded:
                return "flooded"

    def drain(self, grace_s: float) -> None:
        """Read what the output pipes still hold until they close, for `grace_s` at most
        (a writer that could not be killed does not hold the result up longer)."""
        deadline = time.monotonic() + grace_s
        while not self._closed() and not self.flooded:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._step(left)

    def close(self) -> None:
        for key in list(self._selector.get_map().values()):
            self._selector.unregister(key.fileobj)
        self._selector.close()
        if self._exit is not None:
            os.close(self._exit)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def text(self, name: str) -> str:
        return self.buffers[name].decode("utf-8", errors="replace")

    def _closed(self) -> bool:
        """Both output pipes reached their end of file."""
        return not any(key.data in self.buffers for key in self._selector.get_map().values())

    def _step(self, wait_s: float) -> None:
        for key, _ in self._selector.select(wait_s):
            if key.data == "exit":
                self._selector.unregister(key.fileobj)  # told once: `proc.poll` knows now
            elif key.data == "stdin":
                self._feed(key.fileobj)  # type: ignore[arg-type]
            else:
                self._read(key)

    def _read(self, key: selectors.SelectorKey) -> None:
        chunk = os.read(key.fd, CHUNK)
        if not chunk:
            self._selector.unregister(key.fileobj)
            return
        buf = self.buffers[key.data]
        room = self.limit - len(buf)
        buf.extend(chunk[: max(room, 0)])
        if len(chunk) > room:
            self.flooded = True

    def _feed(self, stream) -> None:  # noqa: ANN001 - the Popen's stdin (a BufferedWriter)
        try:
            sent = os.write(stream.fileno(), self._input[:CHUNK])
        except BlockingIOError:
            return
        except BrokenPipeError:
            sent = len(self._input)  # the program exited without reading its input
        self._input = self._input[sent:]
        if not self._input:
            self._selector.unregister(stream)
            stream.close()


def _pidfd(pid: int) -> int | None:
    """A file descriptor readable when process `pid` ends (Linux 5.3+); None elsewhere."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None
