"""A process on a pseudo-terminal, as a user sees it (tests of what the screen shows)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from codur.terminal_text import clean

WAIT_S = 120
"""How long a step may take before the test gives up (a hang guard, not a measurement)."""


class Terminal:
    """A process on a pseudo-terminal: type lines, wait for text on the screen."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], columns: int = 160) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "codur", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.screen = ""
        """Everything shown so far, without control sequences."""
        self.seen = 0
        """Where the text `expect` looks at starts (after what it found last)."""

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the process ended and closed the terminal
            return False
        self.screen += clean(data.decode("utf-8", errors="replace"))
        return bool(data)

    def expect(self, text: str) -> str:
        """Wait until `text` is on the screen after the last match; the screen since."""
        deadline = time.monotonic() + WAIT_S
        while text not in self.screen[self.seen :]:
            if time.monotonic() > deadline or not self._read(0.5):
                pytest.fail(f"{text!r} never shown; the screen:\n{self.screen[self.seen :]}")
        start, end = self.seen, self.screen.index(text, self.seen) + len(text)
        self.seen = end
        return self.screen[start:end]

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def close(self) -> int:
        while self._read(0.5):
            pass
        code = self.process.wait(timeout=WAIT_S)
        os.close(self.master)
        return code
