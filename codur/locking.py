"""Locks across processes: `locked(path)` waits its turn for a read-change-write of one
file; `held(lock, busy)` takes a lock at once or says who holds it (the workspace's run
lock, `codur.workspace.hold_workspace`)."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


class _Held(threading.local):
    """The locks this thread holds by `held` (inside its own block, `held` of the same
    lock goes through: it is the thread's already)."""

    def __init__(self) -> None:
        self.locks: set[Path] = set()


_HELD = _Held()


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


@contextmanager
def held(lock: Path, busy: Callable[[str], Exception]) -> Iterator[None]:
    """Hold `lock` exclusively, at once: `busy(who)` is raised while another holds it, in
    this process or another (`who`: the holder's process and start, as it wrote them in
    the file). Neither `lock` nor its folder (which must exist) is reached through a
    symlink (OSError); the system lets go when the process ends, however it ends. Inside
    its own block the same thread may hold it again."""
    if lock in _HELD.locks:
        yield
        return
    fd = _open_regular(lock)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise busy(_holder(fd)) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {time.time():.0f}\n".encode(), 0)
        _HELD.locks.add(lock)
        try:
            yield
        finally:
            _HELD.locks.discard(lock)
            os.ftruncate(fd, 0)  # nobody holds it: no stale holder to name
    finally:
        os.close(fd)  # lets go of the lock


def _open_regular(lock: Path) -> int:
    """`lock` opened for reading and writing (made when missing), its folder and itself
    never through a symlink; OSError when either is one or it is no regular file."""
    nofollow = os.O_NOFOLLOW | os.O_CLOEXEC
    folder = os.open(lock.parent, os.O_RDONLY | os.O_DIRECTORY | nofollow)
    try:
        fd = os.open(lock.name, os.O_RDWR | os.O_CREAT | nofollow, 0o600, dir_fd=folder)
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file")
    return fd


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it: its process and start time."""
    try:
        pid, started = os.pread(fd, 100, 0).decode().split()
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(started)))
        return f"process {int(pid)}, started {when}"
    except (OSError, ValueError):  # not written yet (it has just taken the lock)
        return "process unknown"
