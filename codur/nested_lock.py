"""Runs in a folder and in a folder inside it are kept apart too: both may change the same
files (a run in `proj/` edits `proj/sub/main.py` while one in `proj/sub/` does), and
each would take the other's writes for a user's. The folder's own run lock
(`.codur/run.lock`) cannot see that: each folder has its own.

So each run also takes, in Codur's state folder (never in the user's folders), one lock
file per folder by its path: its own folder's exclusively, and every folder above it
shared, up to its git work tree's top (a worktree kept inside another checkout is a
project of its own, run beside the checkout). A run in a folder above holds its
folder's lock exclusively, which a run below cannot share; a run below shares the lock a
run above wants alone. Runs in two sibling folders only share their parents' locks, and
go on side by side. Locks live in each user's state folder: two users' runs in a shared
project are kept apart by the folder's run lock only. The system lets go of them when
the process ends, however it ends."""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from codur.locking import UNSUPPORTED


def locks_folder() -> Path:
    """Where the locks live: Codur's state folder, never one of the user's."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("codur")) / "locks"


def lock_file(folder: Path, locks: Path) -> Path:
    """The lock file of `folder` (an absolute, resolved path) in `locks`."""
    return locks / (hashlib.sha256(os.fsencode(folder)).hexdigest()[:24] + ".lock")


@contextmanager
def nested(
    root: Path, locks: Path, busy: Callable[[str], Exception], unlocked: Callable[[str], None]
) -> Iterator[None]:
    """Hold `root`'s lock exclusively and its parents' shared, at once: `busy(why)` is
    raised while a run holds a folder above or below it (`why`: the folder above, or "a
    folder inside" it). Where `locks` cannot be made or locked, `unlocked(why)` is
    called and the block runs with the folder's own run lock only. Inside its own block
    the same thread may hold it again (as the folder's run lock)."""
    key = (root, threading.get_ident())
    if key in _HELD:
        yield
        return
    _HELD.add(key)
    try:
        with _locked(root, locks, busy, unlocked):
            yield
    finally:
        _HELD.discard(key)


_HELD: set[tuple[Path, int]] = set()
"""(folder, thread) whose locks this process holds: a thread holding them may again."""


@contextmanager
def _locked(
    root: Path, locks: Path, busy: Callable[[str], Exception], unlocked: Callable[[str], None]
) -> Iterator[None]:
    with ExitStack() as stack:
        try:
            locks.mkdir(parents=True, exist_ok=True)
            own = _open(stack, lock_file(root, locks))
            fds = [(_open(stack, lock_file(above, locks)), above) for above in _above(root)]
        except OSError as exc:
            unlocked(f"{locks}: {exc.strerror or exc}")
            yield
            return
        try:
            _take(own, fcntl.LOCK_EX, busy, f"a folder inside {root}")
            for fd, above in fds:
                _take(fd, fcntl.LOCK_SH, busy, str(above))
        except OSError as exc:
            if exc.errno not in UNSUPPORTED:
                raise
            unlocked(exc.strerror or str(exc))
        yield


def _above(root: Path) -> list[Path]:
    """The folders above `root` that a run there could share files with: up to its git
    work tree's top (a folder holding `.git`); none when `root` is a work tree's top
    itself (a worktree kept inside another checkout, `.worktrees/x`, is its own project),
    every one up to `/` outside git."""
    if (root / ".git").exists():
        return []
    found = []
    for above in root.parents:
        found.append(above)
        if (above / ".git").exists():
            break
    return found


def _open(stack: ExitStack, path: Path) -> int:
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o600)
    stack.callback(os.close, fd)  # closing lets go of the lock
    return fd


def _take(fd: int, kind: int, busy: Callable[[str], Exception], why: str) -> None:
    try:
        fcntl.flock(fd, kind | fcntl.LOCK_NB)
    except BlockingIOError:
        raise busy(why) from None
