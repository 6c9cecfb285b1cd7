"""Which way a program starts (codur.sandbox.child): forked from Codur with the steps as
`preexec_fn`, or, once Codur's memory makes a fork costly (the embedded model loaded:
42 ms a program), started by vfork through `child.py` run by Codur's own interpreter
(12 ms, whatever Codur's size). The same steps, in the same order, either way.

`Start.popen` goes to `subprocess.Popen` (with the environment: the program's, or
child.py's own, empty, when the program's is handed over with the steps);
`Start.started()` after it waits for the program's exec and raises what stopped it
(OSError for an exec that failed, as Popen raises itself; SubprocessError for a step),
so both ways fail alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.sandbox.child import READY, Steps
from codur.sandbox.readonly import keep_read_only

CHILD = Path(__file__).with_name("child.py")
FORK_BELOW_BYTES = 512 * 1024 * 1024
"""Resident memory under which Codur forks to start a program (2 ms at 100 MB), over
which it execs `child.py` (12 ms): a fork's cost grows with the memory it copies the page
tables of, and reaches 12 ms near 600 MB."""


def fork_is_costly() -> bool:
    """Codur's resident memory is over FORK_BELOW_BYTES (Linux; elsewhere never)."""
    if not hasattr(os, "memfd_create"):  # child.py gets its steps in one
        return False
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, IndexError, ValueError):
        return False
    return pages * os.sysconf("SC_PAGE_SIZE") > FORK_BELOW_BYTES


@dataclass
class Start:
    """How one program starts: `argv` (the program's, or child.py's followed by it) and
    the Popen arguments that go with it."""

    argv: list[str]
    popen: dict[str, Any]
    program: str = ""
    """The program's argv[0] (what an exec that failed names)."""
    _report: int | None = None
    _fds: list[int] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        argv: list[str],
        steps: Steps,
        libc: Callable[[], Any],
        env: dict[str, str],
    ) -> Start:
        """`libc`: the C library, looked up here for a fork (a forked child of a Codur
        with threads must import nothing, nor look anything up); `env`: the program's."""
        if steps == Steps():
            return cls(list(argv), {"env": env})
        if not fork_is_costly() or not sys.executable:
            c = libc()
            enter = keep_read_only([Path(p) for p in steps.read_only]) if steps.read_only else None
            return cls(list(argv), {"env": env, "preexec_fn": lambda: steps.run(c, enter)})
        spec = _spec({"steps": steps.encoded(), "env": env})
        read, write = os.pipe()
        inherited = [write, spec] if steps.landlock is None else [write, spec, steps.landlock]
        helper = [sys.executable, "-I", "-S", str(CHILD), str(write), str(spec)]
        popen = {"env": _own_loader_env(), "pass_fds": tuple(inherited)}
        return cls([*helper, *argv], popen, argv[0], read, [read, write, spec])

    def started(self) -> None:
        """After Popen returned: wait until the program is exec'd; what stopped it raises
        (OSError: its exec failed, as Popen raises; SubprocessError: a step did)."""
        if self._report is None:
            return
        for fd in [fd for fd in self._fds if fd != self._report]:
            self._close(fd)
        chunks = []
        while chunk := os.read(self._report, 65536):
            chunks.append(chunk)
        self._close(self._report)
        said = b"".join(chunks)
        if said == READY:
            return
        if not said:
            raise subprocess.SubprocessError("the program's start ended before its steps")
        failed = json.loads(said.removeprefix(READY))
        if failed["kind"] == "exec":
            raise OSError(failed["errno"], failed["message"], self.program)
        raise subprocess.SubprocessError(f"the program could not start: {failed['message']}")

    def close(self) -> None:
        """Release the pipe (the program started, or Popen failed)."""
        for fd in list(self._fds):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd in self._fds:
            self._fds.remove(fd)
            os.close(fd)


def _spec(given: dict[str, Any]) -> int:
    """A memory file holding `given` as JSON, read from its start (not argv: every user
    may read a process's command line)."""
    fd = os.memfd_create("codur-start", os.MFD_CLOEXEC)
    data = memoryview(json.dumps(given).encode())
    while data:
        data = data[os.write(fd, data) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _own_loader_env() -> dict[str, str]:
    """child.py's own environment: none of the program's (its LD_PRELOAD or relative
    LD_LIBRARY_PATH would run before the program is confined), only the library path
    Codur's interpreter itself runs with."""
    name = "LD_LIBRARY_PATH"
    return {name: os.environ[name]} if name in os.environ else {}
