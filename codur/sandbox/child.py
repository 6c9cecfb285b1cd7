"""The child's half of starting a program: the steps between Codur and the program's exec
(SIGKILL when Codur dies, the memory cap, Landlock, the capabilities that could read
Codur's memory dropped), one code for the two ways a program starts:

- in a forked copy of Codur, as `preexec_fn` (`Steps.run`): the cheapest while Codur is
  small (2 ms);
- in a fresh interpreter running this file, started by vfork (`python -I -S child.py
  REPORT SPEC ARGV...`) with an empty environment (the program's is handed over with
  the steps, and set at its exec): a fork copies the page tables of all of Codur's
  memory, 42 ms a program once the embedded model is loaded (2 GB), where this costs
  12 ms whatever Codur's size (codur.sandbox.started says which way a program starts).

Imports only the standard library: run as a script it must import nothing of Codur's
nor of the program's folder (`-I -S`). It reports through the REPORT pipe, whose write
end closes at the program's exec: READY once the steps are taken, then why the exec
failed if it did (and exits 255).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, NoReturn

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_LOWER = 3
SYS_LANDLOCK_RESTRICT_SELF = 446  # as landlockpy has it (the unified syscall table)
CAPABILITY_VERSION_3 = 0x20080522
EXIT_INSPECTING = 126
"""A program's exit code when the capabilities that could read Codur's memory could not be
taken from it."""
READY = b"ready"
"""What child.py reports once the steps are taken, before the exec."""
INSPECTING_REFUSED = (
    b"codur: cannot take CAP_SYS_PTRACE and the like from this program (no "
    b"CAP_SETPCAP): not running it as root with them\n"
)


@dataclass(frozen=True)
class Steps:
    """What runs before the program's exec, in this order (plain data: the exec'd way
    gets it as JSON)."""

    parent: int | None = None
    """Codur's pid: the program gets SIGKILL when the thread that started it dies (and
    ends at once if Codur is already gone)."""
    memory: int | None = None
    """RLIMIT_AS in bytes."""
    landlock: int | None = None
    """A Landlock ruleset's file descriptor, enforced on the program."""
    landlock_flags: int = 0
    """landlock_restrict_self's flags (NO_NEW_PRIVS where the kernel takes it there)."""
    no_new_privs: bool = False
    """prctl(PR_SET_NO_NEW_PRIVS) before Landlock (kernels whose Landlock sets none)."""
    drop: tuple[int, ...] | None = None
    """Capabilities taken from the program's bounding and ambient sets (None: none)."""
    can_drop: bool = False
    """Codur holds CAP_SETPCAP (without it the bounding set cannot shrink)."""
    must_drop: bool = False
    """Root: a capability kept would be the program's at exec, so it must not run."""
    inheritable: tuple[int, int] | None = None
    """Masks (capabilities 0-31, 32-63) cleared from the inheritable set (None: none)."""
    read_only: tuple[str, ...] = ()
    """Paths bound read-only in a mount namespace of the program's own, before Landlock
    (readonly.py: its step is built in Codur for a fork, here for an exec)."""

    def run(self, libc: Any, before_landlock: Callable[[], None] | None = None) -> None:
        """Take the steps in this process (`libc`: looked up before any fork)."""
        if self.parent is not None:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != self.parent:
                os._exit(137)
        if self.memory and resource is not None:
            resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
        if before_landlock is not None:
            before_landlock()
        if self.landlock is not None:
            if self.no_new_privs and libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
            if libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, self.landlock, self.landlock_flags):
                raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
        if self.drop is not None:
            self._drop(libc)

    def _drop(self, libc: Any) -> None:
        for cap in self.drop or ():
            libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0)
            failed = libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
            if (failed or not self.can_drop) and self.must_drop:
                os.write(2, INSPECTING_REFUSED)
                os._exit(EXIT_INSPECTING)
        if self.inheritable is not None and not clear_inheritable(libc, self.inheritable):
            os.write(2, INSPECTING_REFUSED)
            os._exit(EXIT_INSPECTING)

    def encoded(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def decoded(cls, fields: dict[str, Any]) -> Steps:
        tuples = ("drop", "inheritable", "read_only")
        return cls(**{k: tuple(v) if k in tuples and v else v for k, v in fields.items()})


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]


def clear_inheritable(libc: Any, masks: tuple[int, int]) -> bool:
    """Remove the capabilities in `masks` from this process's inheritable set."""
    header, data = _Header(CAPABILITY_VERSION_3, 0), (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return False
    for i, mask in enumerate(masks):
        data[i].inheritable &= ~mask & 0xFFFFFFFF
    return libc.capset(ctypes.byref(header), data) == 0


def _report(fd: int, kind: str, exc: BaseException) -> NoReturn:
    """Tell Codur why the program did not start (`kind`: setup or exec), and end."""
    errno_ = exc.errno if isinstance(exc, OSError) else None
    message = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    if kind == "setup":
        message = f"{type(exc).__name__}: {message}"
    os.write(fd, json.dumps({"kind": kind, "errno": errno_, "message": message}).encode())
    os._exit(255)


def _read_only_step(paths: tuple[str, ...]) -> Callable[[], None] | None:
    """readonly.keep_read_only(paths), from the file beside this one (standard library
    only, like this one; not through the codur package, which imports far more)."""
    if not paths:
        return None
    import importlib.util
    from pathlib import Path

    path = Path(__file__).with_name("readonly.py")
    spec = importlib.util.spec_from_file_location("readonly", path)
    if spec is None or spec.loader is None:
        raise OSError(errno.ENOENT, f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.keep_read_only([Path(p) for p in paths])


def main(argv: list[str]) -> None:
    """REPORT SPEC ARGV...: read the steps and the program's environment from the SPEC
    descriptor, take the steps, then exec ARGV in that environment (searched on its PATH,
    as Popen does). Through REPORT: READY once the steps are taken, then nothing if the
    exec succeeds (REPORT closes with it), else why it failed."""
    report, spec, program = int(argv[1]), int(argv[2]), argv[3:]
    os.set_inheritable(report, False)  # closed by the program's exec
    try:
        with os.fdopen(spec, "rb") as given:
            start = json.loads(given.read())
        steps = Steps.decoded(start["steps"])
        steps.run(ctypes.CDLL(None, use_errno=True), _read_only_step(steps.read_only))
        if steps.landlock is not None:
            os.close(steps.landlock)  # the program needs no handle on its own ruleset
    except Exception as exc:  # noqa: BLE001 - any failure of a step: reported, never run
        _report(report, "setup", exc)
    for signum in (signal.SIGPIPE, signal.SIGXFSZ):  # this interpreter ignores them
        signal.signal(signum, signal.SIG_DFL)
    os.write(report, READY)
    try:
        os.execvpe(program[0], program, start["env"])
    except OSError as exc:
        _report(report, "exec", exc)


if __name__ == "__main__":
    main(sys.argv)
