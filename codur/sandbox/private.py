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
CAP_SETPCAP = 8
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


@functools.cache
def libc() -> Any:
    """The C library (looked up in the parent: the child must import nothing)."""
    import ctypes  # here: `codur --help` needs none of it

    return ctypes.CDLL(None, use_errno=True)


@functools.cache
def hide_codur() -> None:
    """Make this process not dumpable (once; Linux only): see the module text."""
    if sys.platform != "linux":
        return
    if libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
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


def inspection_steps() -> dict[str, Any]:
    """The child's steps (codur.sandbox.child.Steps fields) dropping INSPECTING from the
    program's capability sets before exec: {} off Linux. A root program keeping them
    would undo `hide_codur`, so one that cannot lose them (no CAP_SETPCAP) is not run: it
    exits with EXIT_INSPECTING."""
    if sys.platform != "linux":
        return {}
    caps = held()
    inheritable = [c for c in caps if _capabilities("CapInh") >> c & 1]
    masks = tuple(sum(1 << (c - 32 * i) for c in inheritable if c // 32 == i) for i in (0, 1))
    return {
        "drop": tuple(caps),
        "can_drop": bool(_capabilities("CapEff") >> CAP_SETPCAP & 1),
        "must_drop": os.geteuid() == 0,  # root's programs get the bounding set at exec
        "inheritable": masks if inheritable else None,
    }


def without_inspection() -> Callable[[], None] | None:
    """`inspection_steps` as a `preexec_fn` (None: not on Linux)."""
    from codur.sandbox.child import Steps

    fields = inspection_steps()
    if not fields:
        return None
    steps, c = Steps(**fields), libc()
    return lambda: steps.run(c)


def bubblewrap_args() -> list[str]:
    """bubblewrap's own way: `--cap-drop` for each INSPECTING capability, when it runs
    as root (otherwise its programs hold no capability in Codur's namespace)."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return []
    return [arg for name in INSPECTING for arg in ("--cap-drop", name)]
