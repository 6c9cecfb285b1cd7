"""Every program Codur starts, until it and all its descendants are gone.

A program runs in its own session and process group, with a tag in its environment
(`_CODUR_PROGRAM`) that its descendants inherit. When it ends, times out, or Codur is
stopped (Ctrl-C, SIGTERM, SIGHUP, a closed output), its process group is killed, then
every process still carrying its tag (a descendant that moved to a group or session of
its own), until none is left. Only a descendant that both leaves the session and clears
its environment escapes; under bubblewrap the PID namespace catches that one too.

There is one reaper per Codur process (`REAPER`): the programs are this process's
children, whichever thread started them.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

from codur.errors import Interrupted
from codur.sandbox.env import TAG

PROC = Path("/proc")
SWEEPS = 20
"""Rounds of kill-by-tag: a descendant forked between a sweep and its kill is found in
the next round (a killed process forks no more, so this ends quickly)."""


class Reaper:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._live: dict[str, subprocess.Popen[bytes]] = {}
        self._ids = itertools.count(1)
        self._stopped: int | None = None

    def new_tag(self) -> str:
        """A tag no other program of any Codur process has."""
        return f"codur-{os.getpid()}-{next(self._ids)}-{secrets.token_hex(4)}"

    def spawn(self, tag: str, **popen: Any) -> subprocess.Popen[bytes]:
        """Start a program (subprocess.Popen arguments), registered under `tag`; refused
        with Interrupted once Codur is stopping."""
        with self._lock:
            if self._stopped is not None:
                raise Interrupted(self._stopped)
            proc = subprocess.Popen(**popen, start_new_session=True)
            self._live[tag] = proc
            if self._stopped is None:
                return proc
        # Stopped while it started: the handler ran inside Popen (in the lock: this thread),
        # before the program was known here, and its Interrupted may have been lost (raised
        # in an at-fork hook, where Python only prints it)
        self.end(tag, proc)
        raise Interrupted(self._stopped)

    def end(self, tag: str, proc: subprocess.Popen[bytes]) -> None:
        """The program is done (or given up on): kill it and every descendant, reap it."""
        kill_tree(proc.pid, tag)
        proc.wait()
        with self._lock:
            self._live.pop(tag, None)

    def stop_all(self, signum: int) -> None:
        """Codur is stopping: start no more programs, kill every live one now."""
        with self._lock:
            if self._stopped is None:
                self._stopped = signum
            live = list(self._live.items())
        for tag, proc in live:
            kill_tree(proc.pid, tag)

    @property
    def stopped_by(self) -> int | None:
        """The signal that stopped Codur (SIGPIPE for a closed output), or None."""
        return self._stopped

    def resume(self) -> None:
        """Programs may start again (a new run in the same process: tests)."""
        with self._lock:
            self._stopped = None


REAPER = Reaper()


def kill_tree(pid: int, tag: str) -> None:
    """SIGKILL process group `pid`, then every process whose environment carries `tag`."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pid, signal.SIGKILL)
    for _ in range(SWEEPS):
        found = tagged(tag)
        for other in found:
            with contextlib.suppress(ProcessLookupError):  # it ended by itself meanwhile
                os.kill(other, signal.SIGKILL)
        if not found:
            return


def tagged(tag: str) -> list[int]:
    """Live processes (not zombies) whose environment holds `tag`; [] without /proc."""
    if not PROC.is_dir():
        return []
    needle = f"{TAG}=".encode()
    wanted = tag.encode()
    found = []
    me = os.getpid()
    for entry in os.scandir(PROC):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"{entry.path}/environ", "rb") as fh:
                environ = fh.read()
        except OSError:
            continue  # gone meanwhile, or another user's process: not one of ours
        for item in environ.split(b"\0"):
            if item.startswith(needle) and wanted in item[len(needle) :].split(b" "):
                found.append(int(entry.name))
                break
    return found
