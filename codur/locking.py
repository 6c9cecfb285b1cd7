"""Locks across processes: `locked(path)` waits its turn for a read-change-write of one
file; `held(lock, busy)` takes a lock at once or says who holds it (the workspace's run
lock, `codur.workspace.hold_workspace`).

Kept by hand rather than through filelock: `held` names the holder in its refusal, runs on
without the lock (saying so) where the file system cannot lock, locks a shared project's
lock file read-only and never reaches it through a linked folder, none of which filelock
offers; flock works on every POSIX system, and Codur needs POSIX anyway (process groups
and signals, `codur.sandbox.reaper`)."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold `path`'s lock file exclusively (blocking until another process lets go): for a
    read-change-write of `path` that other Codur processes may do at the same time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(path.with_name(path.name + ".lock"), flags, 0o600)  # never through a link
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path.name}.lock is not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


_OWNERS: dict[Path, int] = {}
"""The run locks this process holds by `held`: lock path -> the holding thread's ident.
Checked before flock, so that threads of one process exclude each other even where the
file system's flock does not (NFS emulates it with per-process POSIX locks)."""
_OWNERS_LOCK = threading.Lock()

UNSUPPORTED = (errno.ENOLCK, errno.EOPNOTSUPP, errno.EROFS)
"""Errors that say the file system cannot hold the lock (flock unsupported, read-only):
`held` runs without it (and says so) rather than stop runs that used to work."""


@contextmanager
def held(
    lock: Path, busy: Callable[[str], Exception], unlocked: Callable[[str], None]
) -> Iterator[None]:
    """Hold `lock` exclusively, at once: `busy(who)` is raised while another holds it, in
    this process (another thread) or another (`who`: the holder's process and start, as
    it wrote them in the file). Neither `lock` nor its folder (which must exist) is
    reached through a symlink (OSError); the system lets go when the process ends,
    however it ends. Inside its own block the same thread may hold it again. Where the
    file system cannot lock (UNSUPPORTED), `unlocked(why)` is called and the block runs
    with only this process's threads kept apart; where the file may not be written, it
    is locked read-only (its holder not written)."""
    key, me = lock.parent.resolve() / lock.name, threading.get_ident()
    with _OWNERS_LOCK:
        owner = _OWNERS.get(key)
        if owner == me:
            reentered = True
        elif owner is not None:
            raise busy(_holder_in(lock))
        else:
            reentered = False
            _OWNERS[key] = me
    if reentered:
        yield
        return
    try:
        with _flocked(lock, busy, unlocked):
            yield
    finally:
        with _OWNERS_LOCK:
            _OWNERS.pop(key, None)


@contextmanager
def _flocked(
    lock: Path, busy: Callable[[str], Exception], unlocked: Callable[[str], None]
) -> Iterator[None]:
    """`held`'s file lock, across processes (see `held`)."""
    try:
        try:
            fd, writable = _open_regular(lock), True
        except PermissionError:  # a shared project's lock we may not write: lock it read-only
            fd, writable = _open_regular(lock, write=False), False
    except OSError as exc:  # read-only (its folder, made before, may then be missing), or
        # a folder we may not write that holds no lock yet (nothing to lock read-only)
        if exc.errno not in (*UNSUPPORTED, errno.ENOENT):
            raise
        gone = exc.errno == errno.ENOENT
        unlocked("it could not be made" if gone else exc.strerror or str(exc))
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise busy(_holder(fd)) from None
        except OSError as exc:
            if exc.errno not in UNSUPPORTED:
                raise
            unlocked(exc.strerror or str(exc))
            writable = False  # not ours: leave whatever is written there
        if writable:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {time.time():.0f}\n".encode(), 0)
        try:
            yield
        finally:
            if writable:
                # nobody holds it: no stale holder to name; a failure here must not hide
                # the block's own result or error
                with suppress(OSError):
                    os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # lets go of the lock


def _open_regular(lock: Path, write: bool = True) -> int:
    """`lock` opened for reading and writing (made when missing; 0o666 less the umask, so
    a group-shared project's runs share it), or for reading only; its folder and itself
    never through a symlink; OSError when either is one or it is no regular file."""
    nofollow = os.O_NOFOLLOW | os.O_CLOEXEC
    flags = (os.O_RDWR | os.O_CREAT if write else os.O_RDONLY) | nofollow
    folder = os.open(lock.parent, os.O_RDONLY | os.O_DIRECTORY | nofollow)
    try:
        fd = os.open(lock.name, flags, 0o666, dir_fd=folder)
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    return fd


def _holder_in(lock: Path) -> str:
    """Who holds the lock in this process (another thread), as written in `lock` when it
    could be written."""
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return f"process {os.getpid()}, another thread"
    try:
        who = _holder(fd)
    finally:
        os.close(fd)
    return f"process {os.getpid()}, another thread" if who == "process unknown" else who


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it: its process and start time."""
    try:
        pid, started = os.pread(fd, 100, 0).decode().split()
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(started)))
        return f"process {int(pid)}, started {when}"
    except (OSError, ValueError):  # not written yet (it has just taken the lock)
        return "process unknown"
