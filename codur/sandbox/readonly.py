"""Keeping paths read-only inside a folder Landlock lets a program write.

Landlock only grants: writes allowed on a folder are allowed on everything under it, so
it cannot keep a workspace's `.git` read-only while the workspace is writable. The child
half here does what bubblewrap's `--ro-bind` does, between fork and exec and before the
Landlock ruleset is enforced: it enters a user and mount namespace of its own and binds
each path read-only onto itself. Writing under such a path is then refused (EROFS), and
the path, being a mount point, cannot be renamed or removed (EBUSY); once Landlock is
enforced the program cannot unmount it (a Landlock domain may not change mounts).

Where user namespaces are not allowed, the child prints why on its stderr and exits with
code 126 instead of running the program unprotected. `unavailable` finds that out once
per process, before any program is started, by running the same child half on a
throw-away folder (`codur.agents.external` then uses bubblewrap or reports the agent
unavailable).

A process that already holds CAP_SYS_ADMIN (root outside a container, or a privileged
one) enters only a mount namespace: a user namespace would map it to a root that owns
nothing but its own files (it could no longer write files of other users it may write
now), and it needs none to mount.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_RDONLY = 0x1
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_RELATIME = 0x200000
LOCKED = {
    "ST_NOSUID": 0x2,
    "ST_NODEV": 0x4,
    "ST_NOEXEC": 0x8,
    "ST_NOATIME": 0x400,
    "ST_NODIRATIME": 0x800,
    "ST_RELATIME": MS_RELATIME,
}
"""statvfs flags (by name: Linux's) -> the mount flags a remount in a user namespace must
keep."""
EXIT_UNPROTECTED = 126
"""The child's exit code when it cannot make the paths read-only."""
CAP_SYS_ADMIN = 21
PR_SET_DUMPABLE = 4
PROBE_TIMEOUT_S = 30


@functools.cache
def _libc() -> Any:
    """The C library (looked up in the parent: the child must import nothing)."""
    import ctypes  # here: `codur --help` needs none of it

    return ctypes.CDLL(None, use_errno=True)


def keep_read_only(paths: Sequence[Path]) -> Callable[[], None]:
    """The child's half: `paths` (existing) read-only for it and its descendants."""
    import ctypes

    libc = _libc()
    uid, gid = os.getuid(), os.getgid()
    privileged = _has_sys_admin()
    flags_ns = CLONE_NEWNS if privileged else CLONE_NEWUSER | CLONE_NEWNS
    maps = {"setgroups": "deny", "uid_map": f"{uid} {uid} 1", "gid_map": f"{gid} {gid} 1"}
    if privileged:
        maps = {}
    targets = [(os.fsencode(p), _locked_flags(p)) for p in paths]
    shown = ", ".join(str(p) for p in paths)

    def fail(what: str, why: str = "") -> None:
        why = why or os.strerror(ctypes.get_errno())
        message = (
            f"codur: cannot keep {shown} read-only for this program ({what}: {why}); "
            "user namespaces are needed (or use sandbox.confine: bubblewrap)\n"
        )
        os.write(2, message.encode())
        os._exit(EXIT_UNPROTECTED)

    def enter() -> None:
        if libc.unshare(flags_ns) != 0:
            fail("unshare")
        opened = []
        if maps:  # a child of Codur is not dumpable (`private`), so /proc/self is root's:
            libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # only while it opens its maps
            for name in maps:
                try:
                    opened.append((name, os.open(f"/proc/self/{name}", os.O_WRONLY)))
                except OSError as exc:
                    fail(f"opening /proc/self/{name}", exc.strerror or "")
            libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        for name, fd in opened:
            try:
                os.write(fd, maps[name].encode())
            except OSError as exc:
                fail(f"writing /proc/self/{name}", exc.strerror or "")
            os.close(fd)
        if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
            fail("mount --make-rprivate /")
        for target, flags in targets:
            if libc.mount(target, target, None, MS_BIND | MS_REC, None) != 0:
                fail("mount --bind")
            remount = MS_REMOUNT | MS_BIND | MS_RDONLY | flags
            if libc.mount(None, target, None, remount, None) != 0:
                fail("mount -o remount,ro")

    return enter


@functools.cache
def unavailable() -> str | None:
    """Why paths cannot be kept read-only here (None: they can), found once per process
    by a child doing what `keep_read_only` does (the same code) on a throw-away folder."""
    if sys.platform != "linux":
        return f"mount namespaces are a Linux feature (this is {sys.platform})"
    with tempfile.TemporaryDirectory(prefix="codur-probe-") as folder:
        enter = keep_read_only([Path(folder)])
        argv = [sys.executable, "-c", ""]
        try:
            done = subprocess.run(
                argv, preexec_fn=enter, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            return f"the probe did not finish within {PROBE_TIMEOUT_S} s"
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
    step = re.search(r"read-only for this program \((.*)\); ", lines[-1])
    return f"no mount namespace of its own: {step[1] if step else lines[-1]}"


def _has_sys_admin() -> bool:
    """True when this process holds CAP_SYS_ADMIN (in its effective set)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> CAP_SYS_ADMIN & 1)
    return False


def _locked_flags(path: Path) -> int:
    flags = os.statvfs(path).f_flag
    return sum(mount for name, mount in LOCKED.items() if flags & getattr(os, name, 0))
