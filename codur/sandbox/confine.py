"""Confining a program's writes: to its folder (the workspace or a scratch copy), its
private temporary folder and `sandbox.writable` (folders, or single files written in
place), but for paths under those kept read-only (an external agent's `.git`); reading
stays open.

- landlock: the kernel's Landlock LSM through the `landlockpy` binding. The ruleset is
  built in Codur and enforced in the child before exec (codur.sandbox.child), so it
  holds for the program and every descendant. Handled: every kind of write (write,
  truncate, create, remove, rename, link); also, where the kernel offers it, signals to
  processes outside the program (it cannot kill Codur). The network is not confined (TCP
  bind and connect stay open, as under bubblewrap: a project's tests run local servers).
  Writable besides the folders: /dev/null, /dev/zero, /dev/full and /dev/shm (POSIX
  semaphores). Not covered by Landlock: chmod, chown, utime. Read-only paths: bound
  read-only in a mount namespace of the child's own (`readonly`).
- bubblewrap: `bwrap` with the root mounted read-only, the folders bound writable, the
  read-only paths bound read-only over them, a fresh /dev and /proc, and a PID namespace
  (every descendant dies with the program; Codur's processes are not in it); run as
  root, without the capabilities of `private.INSPECTING`.

`detect` picks one for `sandbox.confine` (auto: Landlock, else bubblewrap) or says why
neither can be used. `keeping_read_only` is the one for programs with read-only paths:
Landlock only where the mount namespace it needs works here (`readonly.unavailable`,
probed once per process), else bubblewrap, else none.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from codur.sandbox import readonly
from codur.sandbox.private import bubblewrap_args

DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
SHARED_MEMORY = "/dev/shm"


@dataclass
class Prepared:
    """A command ready to start confined: its argv, the Landlock ruleset the child
    enforces before exec (codur.sandbox.child), and what the parent releases once the
    child has started."""

    argv: list[str]
    landlock: int | None = None
    """The ruleset's file descriptor (None: no Landlock)."""
    landlock_flags: int = 0
    no_new_privs: bool = False
    """Set PR_SET_NO_NEW_PRIVS before the ruleset (a kernel whose Landlock cannot)."""
    read_only: tuple[str, ...] = ()
    """Paths the child binds read-only before the ruleset (`readonly.keep_read_only`)."""
    release: list[Callable[[], None]] = field(default_factory=list)
    drops_inspecting: bool = False
    """The confiner itself takes `private.INSPECTING` from the program (bubblewrap)."""


class Confiner(Protocol):
    name: str

    def prepare(
        self, argv: list[str], cwd: Path, writable: Sequence[Path], read_only: Sequence[Path] = ()
    ) -> Prepared:
        """`argv` confined so that it may write only under `writable` (existing folders or
        files), but nothing under `read_only` (existing paths under those)."""


class Landlock:
    name = "landlock"

    def prepare(
        self, argv: list[str], cwd: Path, writable: Sequence[Path], read_only: Sequence[Path] = ()
    ) -> Prepared:
        from landlockpy import AccessFS, AccessNet, Ruleset, Scope
        from landlockpy.flags import RestrictFlag, restrict_for_abi

        file_writes = AccessFS.WRITE_FILE | AccessFS.TRUNCATE
        writes = file_writes | AccessFS.REMOVE_DIR | AccessFS.REMOVE_FILE | AccessFS.REFER
        writes |= AccessFS.MAKE_CHAR | AccessFS.MAKE_DIR | AccessFS.MAKE_REG
        writes |= AccessFS.MAKE_SOCK | AccessFS.MAKE_FIFO | AccessFS.MAKE_BLOCK
        writes |= AccessFS.MAKE_SYM
        # the network is not confined (as under bubblewrap): left unset, landlockpy would
        # handle every TCP bind and connect, and a project's tests on 127.0.0.1 would fail
        ruleset = Ruleset(handled_fs=writes, handled_net=AccessNet.NONE, scoped=Scope.SIGNAL)
        try:
            for path in [*writable, *_existing([SHARED_MEMORY])]:
                ruleset.allow_path(path, writes if Path(path).is_dir() else file_writes)
            for device in _existing(DEVICES):
                ruleset.allow_path(device, file_writes)
        except BaseException:
            ruleset.close()
            raise
        # as Ruleset.restrict does: no_new_privs with the ruleset where the ABI has the flag
        atomic = restrict_for_abi(ruleset.abi_version) & RestrictFlag.NO_NEW_PRIVS
        return Prepared(
            list(argv),
            landlock=ruleset.fileno(),
            landlock_flags=int(atomic),
            no_new_privs=not atomic,
            read_only=tuple(str(p) for p in read_only),
            release=[ruleset.close],
        )


@dataclass
class Bubblewrap:
    binary: str
    name: str = "bubblewrap"

    def prepare(
        self, argv: list[str], cwd: Path, writable: Sequence[Path], read_only: Sequence[Path] = ()
    ) -> Prepared:
        args = [self.binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in writable:
            args += ["--bind", str(path), str(path)]
        for path in read_only:
            args += ["--ro-bind", str(path), str(path)]
        args += ["--unshare-pid", "--die-with-parent", *bubblewrap_args()]
        args += ["--chdir", str(cwd), "--"]
        return Prepared([*args, *argv], drops_inspecting=True)


def _existing(paths: Sequence[str]) -> list[str]:
    return [p for p in paths if Path(p).exists()]


def landlock_unavailable() -> str | None:
    """Why Landlock cannot confine programs here (None: it can)."""
    if sys.platform != "linux":
        return f"Landlock is a Linux feature (this is {sys.platform})"
    try:
        import landlockpy
    except ImportError:
        return "the landlockpy package is not installed (pip install landlockpy)"
    if landlockpy.abi_version() < 1:
        return "the kernel does not offer it (too old, or disabled at boot)"
    return None


def bubblewrap_unavailable(timeout_s: float) -> tuple[str | None, str]:
    """(why bubblewrap cannot confine programs here or None, the bwrap binary)."""
    binary = shutil.which("bwrap")
    if binary is None:
        return "bwrap is not installed (e.g. apt-get install bubblewrap)", ""
    probe = Bubblewrap(binary).prepare([sys.executable, "-c", ""], Path("/"), [])
    try:
        done = subprocess.run(probe.argv, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return f"bwrap did not start a program within {timeout_s:g} s", binary
    if done.returncode != 0:
        line = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"bwrap cannot run here ({line})", binary
    return None, binary


def keeping_read_only(confiner: Confiner, probe_timeout_s: float) -> tuple[Confiner | None, str]:
    """(a confiner like `confiner` that can also keep paths read-only here, or None; why
    not, when None): Landlock needs a mount namespace of the child's own, else bubblewrap
    is used where it runs."""
    if not isinstance(confiner, Landlock):
        return confiner, ""
    why = readonly.unavailable()
    if why is None:
        return confiner, ""
    no_bwrap, binary = bubblewrap_unavailable(probe_timeout_s)
    if no_bwrap is None:
        return Bubblewrap(binary), ""
    return None, f"{why}; no bubblewrap: {no_bwrap}"


def detect(choice: str, probe_timeout_s: float) -> tuple[Confiner | None, str]:
    """(the confiner for `sandbox.confine` = `choice`, or None; why not, when None)."""
    if choice == "off":
        return None, "sandbox.confine is off"
    reasons = []
    if choice in ("auto", "landlock"):
        why = landlock_unavailable()
        if why is None:
            return Landlock(), ""
        reasons.append(f"no Landlock: {why}")
    if choice in ("auto", "bubblewrap"):
        why, binary = bubblewrap_unavailable(probe_timeout_s)
        if why is None:
            return Bubblewrap(binary), ""
        reasons.append(f"no bubblewrap: {why}")
    return None, "; ".join(reasons)
