"""Writing and removing a workspace's files from Codur's own, unconfined process without
following links: each folder on the way is opened relative to the one before it with
O_NOFOLLOW, and the file is made, replaced or removed relative to its folder. A folder
swapped for a link meanwhile (by a program left running, or a filter git runs while a
file's content is read) is refused, never written through.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class Refused(Exception):
    """`path` is left as it is (the message says why, naming it)."""


@contextmanager
def folder_of(root: Path, path: str, make: bool = False) -> Iterator[int]:
    """A descriptor of the folder holding `path` (relative to `root`), reached without
    following a link; missing folders are made when `make` (else FileNotFoundError)."""
    parts = plain_parts(path)[:-1]
    fd = os.open(root, FOLDER)
    try:
        for depth, part in enumerate(parts):
            try:
                if make:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, dir_fd=fd)
                step = os.open(part, FOLDER | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                folder = "/".join(parts[: depth + 1])
                raise Refused(f"{path}: {folder} is no longer a folder; left as it is") from None
            os.close(fd)
            fd = step
        yield fd
    finally:
        os.close(fd)


def put_file(
    root: Path, path: str, data: bytes, link: bool, mode: Callable[[int | None], int]
) -> None:
    """Make `path` hold `data` (a link to it when `link`), atomically; `mode` gives the
    permission bits from the ones a regular file there has now (None: there is none)."""
    name = plain_parts(path)[-1]
    with folder_of(root, path, make=True) as fd:
        now = _stat(name, fd)
        if now is not None and stat.S_ISDIR(now.st_mode):
            raise Refused(f"{path}: now a folder; left as it is")
        existing = stat.S_IMODE(now.st_mode) if now and stat.S_ISREG(now.st_mode) else None
        temp = f".{name}.{secrets.token_hex(4)}.codur-tmp"
        try:
            if link:
                if b"\0" in data:
                    raise Refused(f"{path}: a link to a name holding NUL; left as it is")
                os.symlink(os.fsdecode(data), temp, dir_fd=fd)
            else:
                with os.fdopen(os.open(temp, NEW_FILE, 0o600, dir_fd=fd), "wb") as out:
                    out.write(data)
                    os.fchmod(out.fileno(), mode(existing))
            os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        finally:
            if _stat(temp, fd) is not None:
                os.unlink(temp, dir_fd=fd)


def make_folder(root: Path, path: str) -> None:
    """Make the folder `path` (and the folders above it); nothing when it is there."""
    name = plain_parts(path)[-1]
    with folder_of(root, path, make=True) as fd:
        now = _stat(name, fd)
        if now is not None and not stat.S_ISDIR(now.st_mode):
            raise Refused(f"{path}: now a file; left as it is")
        if now is None:
            os.mkdir(name, dir_fd=fd)


def remove_file(root: Path, path: str) -> None:
    """Remove the file (or link) `path`; nothing when it is gone already."""
    name = plain_parts(path)[-1]
    try:
        with folder_of(root, path) as fd:
            now = _stat(name, fd)
            if now is not None and stat.S_ISDIR(now.st_mode):
                raise Refused(f"{path}: now a folder; left as it is")
            if now is not None:
                os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        return


def remove_empty_folder(root: Path, folder: str) -> bool:
    """Remove `folder` if it is an empty folder (not a link); whether it was removed."""
    try:
        name = plain_parts(folder)[-1]
        with folder_of(root, folder) as fd:
            now = _stat(name, fd)
            if now is None or not stat.S_ISDIR(now.st_mode):
                return False
            os.rmdir(name, dir_fd=fd)
            return True
    except (FileNotFoundError, Refused):
        return False
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
            return False
        raise


def plain_parts(path: str) -> tuple[str, ...]:
    """The parts of a workspace-relative `path` (Refused: absolute, or holding an empty,
    `.` or `..` part, or `.git`: a snapshot's record naming such a path is forged)."""
    parts = tuple(path.split("/"))
    if not path or any(p in ("", ".", "..", ".git") for p in parts) or "\0" in path:
        raise Refused(f"{path!r}: not a plain path inside the workspace; left alone")
    return parts


def _stat(name: str, fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
