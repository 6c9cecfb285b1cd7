"""Scratch copies of the workspace, one per worker, so candidates never touch the user's
files and parallel candidates never see each other's edits."""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from codur.litter import temp_prefix
from codur.tools.context import ToolContext
from codur.workspace import Workspace


class Scratch:
    """`workers` copies of `root` (minus ignored folders) in a temporary folder."""

    def __init__(self, root: Path, workers: int, ignore: Iterable[str]) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix=temp_prefix("scratch"))
        patterns = shutil.ignore_patterns(*ignore)

        def skip(folder: str, names: list[str]) -> set[str]:
            """Ignored names, and what is neither a file, a folder nor a symlink (a FIFO
            would block the copy; sockets and devices are no part of a program)."""
            return set(patterns(folder, names)) | {n for n in names if _special(Path(folder, n))}

        self.dirs = [
            Path(shutil.copytree(root, Path(self._tmp.name) / str(i), symlinks=True, ignore=skip))
            for i in range(workers)
        ]
        for folder in self.dirs:
            _owner_writable(folder)
        self._root = root
        self._copied = {folder: _listing(folder) for folder in self.dirs}
        self._free: queue.Queue[Path] = queue.Queue()
        for folder in self.dirs:
            self._free.put(folder)

    @contextmanager
    def lease(self) -> Iterator[Path]:
        """A copy nobody else is using; given back as it was made: what a candidate's
        program wrote there (a test that rewrites its golden file) would judge the next."""
        folder = self._free.get()
        try:
            yield folder
        finally:
            try:
                self._reset(folder)
            finally:
                self._free.put(folder)

    def _reset(self, folder: Path) -> None:
        """Put `folder` back as it was copied: what was made since, or changed from a file
        to a folder or back, removed; files changed or removed copied again from the
        workspace, folders made again."""
        was, now = self._copied[folder], _listing(folder)
        for rel in sorted(now, reverse=True):  # what a folder holds before the folder
            if rel not in was or _kind(now[rel]) != _kind(was[rel]):
                _remove(folder / rel)
        for rel in sorted(was):  # a folder before what it holds
            seen, target = was[rel], folder / rel
            if seen is None:
                target.mkdir(exist_ok=True)
            elif now.get(rel) != seen:
                target.unlink(missing_ok=True)
                try:
                    shutil.copy2(self._root / rel, target, follow_symlinks=False)
                except FileNotFoundError:  # gone from the workspace meanwhile: gone here
                    del was[rel]
                    continue
                _owner_writable_file(target)
                was[rel] = _entry(target)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()


Entry = tuple[int, int, int] | None
"""A file's (mode, size, mtime) as a listing holds it; None for a folder."""


def _entry(path: Path) -> Entry:
    info = os.lstat(path)
    return None if stat.S_ISDIR(info.st_mode) else (info.st_mode, info.st_size, info.st_mtime_ns)


def _kind(entry: Entry) -> str:
    return "folder" if entry is None else "link" if stat.S_ISLNK(entry[0]) else "file"


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _listing(top: Path) -> dict[str, Entry]:
    """Every file, link and folder under `top`, by its path relative to it."""
    found: dict[str, Entry] = {}
    for folder, dirs, names in os.walk(top):
        for name in [*dirs, *names]:
            path = Path(folder, name)
            found[path.relative_to(top).as_posix()] = _entry(path)
    return found


def _owner_writable_file(path: Path) -> None:
    info = os.lstat(path)
    if not stat.S_ISLNK(info.st_mode) and not info.st_mode & stat.S_IWUSR:
        os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IWUSR)


def _owner_writable(top: Path) -> None:
    """Let the owner write every file and folder of a copy (a read-only `main.py` is
    copied read-only, and a candidate is written over it there)."""
    for folder, _dirs, names in os.walk(top):
        for path in [folder, *(os.path.join(folder, name) for name in names)]:
            info = os.lstat(path)
            if not stat.S_ISLNK(info.st_mode) and not info.st_mode & stat.S_IWUSR:
                os.chmod(path, stat.S_IMODE(info.st_mode) | stat.S_IWUSR)


def _special(path: Path) -> bool:
    return not (path.is_symlink() or path.is_dir() or path.is_file())


def in_copy(ctx: ToolContext, folder: Path, **changes: object) -> ToolContext:
    """`ctx` acting in the scratch copy `folder`: its programs import the copy's modules
    first (its `src/` and its root on `PYTHONPATH`), not the workspace's that an
    editable install (`pip install -e .`) puts on the project's path."""
    source = folder / "src"  # a source root, not a package (`src/email.py` would shadow)
    roots = [str(source)] if source.is_dir() and not (source / "__init__.py").exists() else []
    roots += [str(folder)]
    inherited = ctx.program_env.get("PYTHONPATH") or os.environ.get("PYTHONPATH", "")
    path = os.pathsep.join([*roots, *([inherited] if inherited else [])])
    env = {**ctx.program_env, "PYTHONPATH": path}
    return dataclasses.replace(ctx, ws=Workspace(folder), program_env=env, **changes)
