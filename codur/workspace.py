"""The workspace: the folder Codur works in. Every path is confined to it; writes are
atomic; one run that may change it at a time (`hold_workspace`)."""

from __future__ import annotations

import errno
import functools
import os
import stat
import tempfile
import unicodedata
from collections.abc import Callable, Collection, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from codur import source_encoding
from codur.errors import WorkspaceBusy, WorkspaceError, cannot_write
from codur.litter import TEMP_SUFFIX, write_prefix
from codur.locking import UNSUPPORTED, held
from codur.nested_lock import locks_folder, nested

CODUR_DIR = ".codur"
"""Codur's own folder in a workspace: the code index, the project's memory. Not the
user's content: snapshots leave it out, so `codur undo` never touches it."""
RUN_LOCK = "run.lock"
"""The run lock, in CODUR_DIR: held by the one run that may change the workspace."""

SKIP_DIRS = {
    ".git",
    ".venv",
    "venv",
    "env",
    "node_modules",
    "__pycache__",
    "site-packages",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "build",
    "dist",
}
"""Folders that hold no project tests (virtual environments, caches, build output)."""


def project_tree(root: Path, ignore: Collection[str] = ()) -> Iterator[tuple[Path, list[str]]]:
    """Each folder under `root` as Python and pytest see the project: (folder, its entry
    names other than folders), sorted; SKIP_DIRS, `ignore` and hidden folders are left out
    and links to folders not followed. Unlike codur.tools.walk (what git sees), .gitignore
    is not read: an ignored module still imports and an ignored test still runs."""
    skip = {*SKIP_DIRS, *ignore}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("."))
        yield Path(folder), sorted(names)


GIT_DIR = ".git"
"""Git's own folder (or the file that points at it, in a worktree or a submodule)."""


def in_git_folder(path: str) -> bool:
    """Whether `path` is git's own folder or lies in it. No tool or edit touches it: a hook
    or a config written there runs programs later, outside any sandbox (and snapshots
    leave .git out, so undo could not put it back); a remote URL there may hold a token."""
    return GIT_DIR in PurePosixPath(path.lower()).parts


@dataclass(frozen=True)
class Workspace:
    root: Path
    allow_outside: bool = False
    """Let paths outside the root through (only when config explicitly allows it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", self.root.resolve())

    def resolve(self, path: str | Path) -> Path:
        """The absolute path of `path` inside the workspace, or WorkspaceError.

        Relative paths are taken from the root; `..`, absolute paths and symlinks that lead
        outside the root are refused (unless `allow_outside`), as are paths holding NUL,
        control characters or text the filesystem cannot encode.
        """
        shown = str(path)  # 'x', not PosixPath('x')
        text = unicodedata.normalize("NFC", shown)
        if "\x00" in text:
            raise WorkspaceError(f"invalid path {shown!r}: contains a NUL byte")
        if any(unicodedata.category(ch) == "Cc" for ch in text):
            raise WorkspaceError(f"invalid path {shown!r}: contains a control character")
        try:
            os.fsencode(text)
        except UnicodeEncodeError:
            raise WorkspaceError(f"invalid path {shown!r}: not encodable as a file name") from None
        limit = _name_max(self.root)
        if any(len(os.fsencode(part)) > limit for part in Path(text).parts):
            raise WorkspaceError(
                f"invalid path {shown[:SHOWN_CHARS]!r}...: a name in it is longer than the "
                f"system allows ({limit} bytes)"
            )
        try:
            candidate = (self.root / text).resolve()
        except (OSError, RuntimeError) as exc:  # symlink loop, name too long
            raise WorkspaceError(f"invalid path {shown!r}: {exc}") from None
        if not self.allow_outside and not self.contains(candidate):
            raise WorkspaceError(f"path {shown!r} is outside the workspace {self.root}")
        return candidate

    def contains(self, path: Path) -> bool:
        """Whether the absolute, resolved `path` is the root or lies below it."""
        return path == self.root or self.root in path.parents

    def relative(self, path: Path) -> str:
        """`path` relative to the root (POSIX form); absolute if it lies outside."""
        resolved = path.resolve()
        if not self.contains(resolved):
            return resolved.as_posix()
        return resolved.relative_to(self.root).as_posix() or "."

    def read_text(self, path: str | Path) -> str:
        target = self.resolve(path)
        if target.exists() and not target.is_file():  # a FIFO would block the read forever
            raise WorkspaceError(f"cannot read {path}: not a regular file")
        try:
            data = target.read_bytes()
        except OSError as exc:
            raise WorkspaceError(f"cannot read {path}: {exc.strerror or exc}") from None
        encoding = source_encoding.of_file(str(path), data[:4096])
        try:  # newlines as text mode reads them
            return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError:
            shown = source_encoding.label(encoding)
            raise WorkspaceError(f"cannot read {path}: not {shown} text") from None

    def write_text(self, path: str | Path, text: str) -> Path:
        """Write atomically (temp file + rename), keeping the file's mode and line endings."""
        target = self.resolve(path)
        newline = "\n"
        mode = None
        if target.is_dir():
            raise WorkspaceError(f"cannot write {path}: it is a folder")
        if target.exists() and not target.is_file():
            raise WorkspaceError(f"cannot write {path}: not a regular file")
        if target.exists():
            try:
                with open(target, "rb") as fh:
                    if b"\r\n" in fh.read(65536):
                        newline = "\r\n"
                mode = target.stat().st_mode & 0o7777
            except OSError as exc:
                raise _unwritten(path, exc) from None
        text = text.replace("\r\n", "\n")
        if newline != "\n":
            text = text.replace("\n", newline)
        encoding = source_encoding.of_text(str(path), text)
        try:
            data = text.encode(encoding)
        except UnicodeEncodeError as exc:  # before any file is made
            bad = exc.object[exc.start : exc.end]
            raise WorkspaceError(
                f"cannot write {path}: it declares the {encoding} encoding, "
                f"which cannot hold {bad!r}"
            ) from None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(
                prefix=write_prefix(target.name), suffix=TEMP_SUFFIX, dir=target.parent
            )
        except OSError as exc:
            raise _unwritten(path, exc) from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            if mode is not None:
                os.chmod(tmp, mode)
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise _unwritten(path, exc) from None
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target


@contextmanager
def hold_workspace(root: Path, warn: Callable[[str], None]) -> Iterator[None]:
    """Hold the workspace at `root` for a run that may change its files (a task, `codur
    resume`, `codur undo`, the Python API's run), from before it reads or writes anything:
    WorkspaceBusy at once, naming the run that holds it, while another does (in this
    process or another). The lock is ROOT/.codur/run.lock (`codur.locking.held`; a
    symlink there is refused: WorkspaceError). Inside its own block the same thread may
    hold it again: `codur resume` holds it while it reads the run's record, then runs it.
    Where the file system cannot lock (flock unsupported, read-only), `warn` hears it in
    one line and the run goes on without the lock (only this process's threads are kept
    apart); where run.lock may not be written (a shared project), it is locked read-only."""
    root = root.resolve()
    lock = root / CODUR_DIR / RUN_LOCK
    if not root.is_dir():  # gone (or replaced by a file) since the run was set up
        raise WorkspaceError(f"{root}: no such folder")

    def busy(who: str) -> WorkspaceBusy:
        return WorkspaceBusy(
            f"{root} is busy: another Codur run ({who}) may change its files; "
            "try again when it has ended"
        )

    warned: list[str] = []

    def unlocked(why: str) -> None:
        warned.append(why)
        warn(f"running without the run lock {lock} ({why}): runs here are not kept apart")

    def nested_busy(where: str) -> WorkspaceBusy:
        return WorkspaceBusy(
            f"{root} is busy: another Codur run, in {where}, may change its files; "
            "try again when it has ended"
        )

    def no_nesting(why: str) -> None:
        if not warned:  # one line: the run lock's says that runs are not kept apart
            warn(f"runs in folders above or inside {root} are not kept apart from it ({why})")

    with ExitStack() as stack:
        try:
            own_folder(root / CODUR_DIR)
            stack.enter_context(held(lock, busy, unlocked))
            stack.enter_context(nested(root, locks_folder(), nested_busy, no_nesting))
        except OSError as exc:
            if (machine := cannot_write(exc, root / CODUR_DIR, writing=True)) is not None:
                raise machine from None  # a folder Codur may not write in: exit 11
            link = exc.errno in (errno.ELOOP, errno.ENOTDIR)
            why = f"{CODUR_DIR} or {RUN_LOCK} is a symlink or not a folder or file" if link else ""
            fix = " (Codur never follows a link there: remove it)" if link else ""
            raise WorkspaceError(
                f"cannot take the run lock {lock}: {why or exc.strerror}{fix}"
            ) from None
        yield


def own_folder(folder: Path) -> None:
    """Make CODUR_DIR when missing, with a `.gitignore` of `*` (Codur's own files, which
    `git status` should not list); a `.gitignore` there that is missing or empty (a full
    disk cut its write) is written again, atomically. One the user wrote is kept."""
    try:
        os.mkdir(folder, 0o777)  # less the umask: a group-shared project's runs share it
    except FileExistsError:
        if not folder.is_dir() or folder.is_symlink() or not os.access(folder, os.W_OK):
            return  # `held` refuses it, or finds it read-only, and says so
    except OSError as exc:
        if exc.errno in UNSUPPORTED:  # read-only: `held` finds the same and says so
            return
        raise
    ignore_all(folder)


def ignore_all(folder: Path) -> None:
    """`folder/.gitignore` holds `*` unless it holds something already (written atomically;
    never through a link: WorkspaceError)."""
    try:
        if (folder / ".gitignore").lstat().st_size > 0:
            return
    except FileNotFoundError:
        pass
    Workspace(folder).write_text(".gitignore", "*\n")


def open_regular(path: Path) -> BinaryIO:
    """`path` opened for reading if it is a regular file, not a link nor a FIFO swapped in
    since it was listed (OSError otherwise): reading never hangs nor follows a link."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return os.fdopen(fd, "rb")


def _unwritten(path: str | Path, exc: OSError) -> WorkspaceError:
    """Why `path` could not be written: the machine's condition (a read-only folder, a
    full disk: CannotWrite, exit code 11), or this file's own (exit code 2)."""
    return cannot_write(exc, path, writing=True) or WorkspaceError(
        f"cannot write {path}: {exc.strerror or exc}"
    )


SHOWN_CHARS = 60
"""Characters of a path too long for the system shown in its error."""


@functools.cache
def _name_max(root: Path) -> int:
    """The longest file name, in bytes, the file system of `root` allows (255 where the
    system does not say)."""
    try:
        return os.pathconf(root, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):
        return 255
