"""Which way a program starts (codur.sandbox.child): forked from Codur with the steps as
`preexec_fn`, or, once Codur's memory makes a fork costly (the embedded model loaded:
42 ms a program), started by vfork through `child.py` run by Codur's own interpreter
(12 ms, whatever Codur's size). The same steps, in the same order, either way.

`Start.popen` goes to `subprocess.Popen`; `Start.started()` after it waits for the
program's exec and raises what stopped it (OSError for an exec that failed, as Popen
raises itself; SubprocessError for a step), so both ways fail alike.
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

from codur.sandbox.child import Steps
from codur.sandbox.readonly import keep_read_only

CHILD = Path(__file__).with_name("child.py")
FORK_BELOW_BYTES = 512 * 1024 * 1024
"""Resident memory under which Codur forks to start a program (2 ms at 100 MB), over
which it execs `child.py` (12 ms): a fork's cost grows with the memory it copies the page
tables of, and reaches 12 ms near 600 MB."""


def fork_is_costly() -> bool:
    """Codur's resident memory is over FORK_BELOW_BYTES (Linux; elsewhere never)."""
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
    _write: int | None = None
    _fds: list[int] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        argv: list[str],
        steps: Steps,
        libc: Callable[[], Any],
    ) -> Start:
        """`libc`: the C library, looked up here for a fork (a forked child of a Codur
        with threads must import nothing, nor look anything up)."""
        if steps == Steps():
            return cls(list(argv), {})
        if not fork_is_costly() or not sys.executable:
            c = libc()
            enter = keep_read_only([Path(p) for p in steps.read_only]) if steps.read_only else None
            return cls(list(argv), {"preexec_fn": lambda: steps.run(c, enter)})
        read, write = os.pipe()
        inherited = [write] if steps.landlock is None else [write, steps.landlock]
        helper = [sys.executable, "-I", "-S", str(CHILD), str(write), steps.encoded()]
        popen = {"pass_fds": tuple(inherited)}
        return cls([*helper, *argv], popen, argv[0], read, write, [read, write])

    def started(self) -> None:
        """After Popen returned: wait until the program is exec'd; what stopped it raises."""
        if self._report is None:
            return
        self._close(self._write)
        chunks = []
        while chunk := os.read(self._report, 65536):
            chunks.append(chunk)
        self._close(self._report)
        if not chunks:
            return
        failed = json.loads(b"".join(chunks))
        if failed["kind"] == "exec":
            raise OSError(failed["errno"], failed["message"], self.program)
        raise subprocess.SubprocessError(f"the program could not start: {failed['message']}")

    def close(self) -> None:
        """Release the pipe (the program started, or Popen failed)."""
        for fd in list(self._fds):
            self._close(fd)

    def _close(self, fd: int | None) -> None:
        if fd is not None and fd in self._fds:
            self._fds.remove(fd)
            os.close(fd)
