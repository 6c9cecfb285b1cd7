"""Every program Codur starts, until it and all its descendants are gone.

A program runs in its own session and process group, with a tag in its environment
(`_CODUR_PROGRAM`) that its descendants inherit. When it ends, times out, or Codur is
stopped (Ctrl-C, SIGTERM, SIGHUP, a closed output), its descendants are listed (while the
program lives they are still its children, wherever they moved), its process group is
killed, then those descendants, then every process still carrying its tag (a descendant
whose parent had ended) or holding the write end of its output pipes (one that also
cleared its environment, `setsid env -i ...`), until none is left. Only a descendant that
is orphaned, leaves the session, clears its environment and closes the program's output
escapes; it cannot hold the program's result up (`codur.sandbox.pipes` stops reading on
time), and under bubblewrap the PID namespace catches it too.

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

import psutil

from codur.errors import Interrupted
from codur.sandbox.env import TAG

PROC = Path("/proc")
SWEEPS = 20
"""Rounds of kill-by-tag (and by pipe): a descendant forked between a sweep and its kill is found in
the next round (a killed process forks no more, so this ends quickly)."""


class Reaper:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._live: dict[str, subprocess.Popen[bytes]] = {}
        self._pipes: dict[str, frozenset[int]] = {}
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
            self._pipes[tag] = output_pipes(proc)
            if self._stopped is None:
                return proc
        # Stopped while it started: the handler ran inside Popen (in the lock: this thread),
        # before the program was known here, and its Interrupted may have been lost (raised
        # in an at-fork hook, where Python only prints it)
        self.end(tag, proc)
        raise Interrupted(self._stopped)

    def end(self, tag: str, proc: subprocess.Popen[bytes]) -> None:
        """The program is done (or given up on): kill it and every descendant, reap it."""
        kill_tree(proc.pid, tag, self._pipes.get(tag, frozenset()))
        proc.wait()
        with self._lock:
            self._live.pop(tag, None)
            self._pipes.pop(tag, None)

    def stop_all(self, signum: int) -> None:
        """Codur is stopping: start no more programs, kill every live one now."""
        with self._lock:
            if self._stopped is None:
                self._stopped = signum
            live = [(t, p, self._pipes.get(t, frozenset())) for t, p in self._live.items()]
        for tag, proc, pipes in live:
            kill_tree(proc.pid, tag, pipes)

    @property
    def stopped_by(self) -> int | None:
        """The signal that stopped Codur (SIGPIPE for a closed output), or None."""
        return self._stopped

    def resume(self) -> None:
        """Programs may start again (a new run in the same process: tests)."""
        with self._lock:
            self._stopped = None


REAPER = Reaper()


def output_pipes(proc: subprocess.Popen[bytes]) -> frozenset[int]:
    """The inodes of the pipes `proc` writes its output to (none: its output is no pipe)."""
    streams = [s for s in (proc.stdout, proc.stderr) if s is not None and not s.closed]
    return frozenset(os.fstat(s.fileno()).st_ino for s in streams)


def kill_tree(pid: int, tag: str, pipes: frozenset[int] = frozenset()) -> None:
    """SIGKILL process group `pid` and every descendant of process `pid`, then every
    process whose environment carries `tag` or that holds the write end of one of `pipes`
    (inodes), until none is left."""
    # psutil rather than reading /proc by hand: it lists processes, their children and
    # environments on macOS and the BSDs too, and kills a listed process only if its pid
    # has not been reused since.
    descendants = _descendants(pid)  # before the group dies and orphans them
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pid, signal.SIGKILL)
    _kill(descendants)
    for _ in range(SWEEPS):
        found = members(tag, pipes)
        _kill(found)
        if not found:
            return


def _descendants(pid: int) -> list[psutil.Process]:
    """The live descendants of process `pid` ([] once it is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:  # gone (or a zombie) already: its children are orphans now
        return []


def _kill(processes: list[psutil.Process]) -> None:
    for process in processes:
        # ended by itself meanwhile; or setuid (`sudo`, `ping`): not ours to kill, as killpg
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            process.kill()


def members(tag: str, pipes: frozenset[int] = frozenset()) -> list[psutil.Process]:
    """Live processes (not zombies) but this one whose environment holds `tag`, or that
    hold the write end of one of `pipes` (found only where there is /proc: psutil does
    not list pipes)."""
    me, found = os.getpid(), []
    for process in psutil.process_iter():
        if process.pid == me:
            continue
        if _carries(process, tag) or (pipes and _writes_to(f"{PROC}/{process.pid}", pipes)):
            found.append(process)
    return found


def _carries(process: psutil.Process, tag: str) -> bool:
    """Whether the environment of `process` holds `tag`."""
    try:
        value = process.environ().get(TAG, "")
    except psutil.Error:
        return False  # gone meanwhile, a zombie, or another user's process: not one of ours
    return tag in value.split(" ")


def _writes_to(process: str, pipes: frozenset[int]) -> bool:
    """Whether `process` (its /proc folder) holds the write end of one of `pipes`: only
    the program and its descendants got it (Codur itself holds the read ends)."""
    try:
        fds = os.listdir(f"{process}/fd")
    except OSError:
        return False  # gone meanwhile, or another user's process
    for fd in fds:
        try:
            link = os.readlink(f"{process}/fd/{fd}")
            if not link.startswith("pipe:[") or int(link[6:-1]) not in pipes:
                continue
            with open(f"{process}/fdinfo/{fd}") as fh:
                flags = next(line for line in fh if line.startswith("flags:"))
        except (OSError, StopIteration, ValueError):
            continue  # closed meanwhile
        if int(flags.split()[1], 8) & (os.O_WRONLY | os.O_RDWR):
            return True
    return False
