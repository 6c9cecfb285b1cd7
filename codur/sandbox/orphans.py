"""Descendants that escape a program's group and tag: one that calls setsid and clears its
environment (`setsid env -i ...`) is found by neither. Under bubblewrap the PID namespace
ends it; elsewhere Codur makes itself the child subreaper of its descendants (Linux
PR_SET_CHILD_SUBREAPER), so such an orphan becomes Codur's own child instead of init's.
When a program ends, Codur's children in a session other than its own that started after
that program did and are no live program are its orphans: they are killed and reaped
before Codur does anything else (a left-over process could otherwise race Codur's own
file writes, swapping a folder for a link).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
PROC = Path("/proc")
SWEEPS = 20
"""Rounds: a killed orphan's own children become Codur's and are found in the next."""


@functools.cache
def adopt() -> bool:
    """Make this process the subreaper of its descendants (once); whether it is."""
    if sys.platform != "linux":
        return False
    import ctypes  # here: `codur --help` needs none of it

    return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0


def started(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot); None when it is gone."""
    fields = _stat(pid)
    return int(fields[19]) if fields else None


def sweep(since: int, live: set[int]) -> list[int]:
    """Kill and reap this process's children that started at or after `since` in a
    session other than its own and are not in `live`; the ones found."""
    me, session = os.getpid(), os.getsid(0)
    killed: list[int] = []
    for _ in range(SWEEPS):
        found = []
        for entry in os.scandir(PROC) if PROC.is_dir() else []:
            fields = _stat(int(entry.name)) if entry.name.isdigit() else None
            if fields and int(fields[1]) == me and int(fields[3]) != session:
                pid = int(entry.name)
                if pid not in live and int(fields[19]) >= since:
                    found.append(pid)
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        killed += found
        if not found:
            break
    return killed


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name: state, ppid, pgrp, session, ...
    (index 19 is the start time); None when the process is gone."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()
