"""Codur's own process stays out of its programs' reach: they cannot read its environment
or memory (`/proc/<codur>/environ` and `/mem`), where the model's API keys are.

A program's environment is scrubbed (`env`), but Codur's is not: it read the keys from
it, and `/proc/<pid>/environ` shows a process's initial environment whatever it removes
later. The kernel lets a process read another's environment or memory only when it may
trace it: same user, and the target "dumpable", unless the reader holds CAP_SYS_PTRACE
(or, for reading, CAP_SYS_ADMIN or CAP_PERFMON). So, on Linux:

- `hide_codur`: Codur makes itself not dumpable (PR_SET_DUMPABLE 0) before it starts
  its first program. A program of the same user is then refused, and so is one of a
  root that holds no more capabilities than Codur (a container's root).
- `without_inspection`: each program starts without the capabilities that override
  that (INSPECTING, dropped from its bounding, ambient and inheritable sets between
  fork and exec; under bubblewrap, by `--cap-drop`): a root with every capability
  (this machine, CI) is refused too, and cannot take the capabilities back.

Not dumpable also means no core dumps of Codur, and no debugger attached to it without
root.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_LOWER = 3
CAP_SETPCAP = 8
CAPABILITY_VERSION_3 = 0x20080522
INSPECTING = {
    "CAP_SYS_MODULE": 16,
    "CAP_SYS_RAWIO": 17,
    "CAP_SYS_PTRACE": 19,
    "CAP_SYS_ADMIN": 21,
    "CAP_PERFMON": 38,
    "CAP_BPF": 39,
}
"""Capabilities that let a process read another's memory or environment despite the
kernel's checks (ptrace, /proc, kernel memory, modules, eBPF, perf)."""
EXIT_INSPECTING = 126
"""A program's exit code when these capabilities could not be taken from it."""


@functools.cache
def _libc() -> Any:
    """The C library (looked up in the parent: the child must import nothing)."""
    import ctypes  # here: `codur --help` needs none of it

    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def hide_codur() -> None:
    """Make this process not dumpable (once; Linux only): see the module text."""
    if sys.platform != "linux":
        return
    if _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        import ctypes

        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")


def _capabilities(field: str) -> int:
    """This process's capability set `field` (CapBnd, CapEff, ...) from /proc/self/status."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1], 16)
    return 0


def held() -> list[int]:
    """The INSPECTING capabilities still in this process's bounding set."""
    bounding = _capabilities("CapBnd")
    return [cap for cap in INSPECTING.values() if bounding >> cap & 1]


def without_inspection() -> Callable[[], None] | None:
    """The child's half: drop INSPECTING from the program's capability sets before exec
    (None: not on Linux). A root program keeping them would undo `hide_codur`, so one
    that cannot lose them (no CAP_SETPCAP) is not run: it exits with EXIT_INSPECTING."""
    if sys.platform != "linux":
        return None
    libc = _libc()
    caps = held()
    able = bool(_capabilities("CapEff") >> CAP_SETPCAP & 1)
    must = os.geteuid() == 0  # root's programs get the bounding set at exec
    inheritable = _clear_inheritable([c for c in caps if _capabilities("CapInh") >> c & 1])
    message = (
        b"codur: cannot take CAP_SYS_PTRACE and the like from this program (no "
        b"CAP_SETPCAP): not running it as root with them\n"
    )

    def drop() -> None:
        for cap in caps:
            libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0)
            if (libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 or not able) and must:
                os.write(2, message)
                os._exit(EXIT_INSPECTING)
        if inheritable is not None and not inheritable():
            os.write(2, message)
            os._exit(EXIT_INSPECTING)

    return drop


def _clear_inheritable(caps: list[int]) -> Callable[[], bool] | None:
    """The child's step removing `caps` from its inheritable set (a root program would
    get them back at exec from there); None when the set holds none of them."""
    if not caps:
        return None
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

    libc, header, data = _libc(), Header(CAPABILITY_VERSION_3, 0), (Data * 2)()
    masks = [sum(1 << (c - 32 * i) for c in caps if c // 32 == i) for i in (0, 1)]

    def clear() -> bool:
        if libc.capget(ctypes.byref(header), data) != 0:
            return False
        for i, mask in enumerate(masks):
            data[i].inheritable &= ~mask & 0xFFFFFFFF
        return libc.capset(ctypes.byref(header), data) == 0

    return clear


def bubblewrap_args() -> list[str]:
    """bubblewrap's own way: `--cap-drop` for each INSPECTING capability, when it runs
    as root (otherwise its programs hold no capability in Codur's namespace)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return []
    return [arg for name in INSPECTING for arg in ("--cap-drop", name)]
