"""What a snapshot says about the workspace: each file's kind, mode and content digest, and
the folders that hold no file of it (empty ones: undo makes them again)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Entry:
    """One file in a snapshot. Two entries are the same file state when their mode and
    digest match."""

    mode: int
    """st_mode bits: the file type and, outside git, its permissions; in git, one of
    0o100644, 0o100755 (executable) or 0o120000 (symlink), as git records them."""
    digest: str
    """Key of its content in the store (a git blob id, or a sha256)."""
    size: int = field(default=0, compare=False)
    mtime_ns: int = field(default=0, compare=False)
    """Outside git: when the content was read, so an unchanged file is not read again."""
    ctime_ns: int = field(default=0, compare=False)
    """Outside git: its status change time then (a program that puts the time of a
    rewrite back with `utime` cannot put this back)."""

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)

    @property
    def is_folder(self) -> bool:
        """A folder holding no file of the snapshot (it has no content to read)."""
        return stat.S_ISDIR(self.mode)


FOLDER = Entry(stat.S_IFDIR, "")
"""The entry of a folder that holds no file of the snapshot (as `Store.current` sees any
folder)."""

Tree = dict[str, Entry]
"""Workspace-relative POSIX path -> entry."""


def empty_folders(folders: Iterable[str], files: Iterable[str]) -> Tree:
    """Of `folders`, those that hold none of `files` (at any depth), as FOLDER entries."""
    full = {str(parent) for path in files for parent in PurePosixPath(path).parents}
    return {folder: FOLDER for folder in folders if folder not in full}


def changed(before: Tree, after: Tree) -> list[str]:
    """Paths created, deleted or changed from `before` to `after`, sorted. A folder that
    is empty on one side and holds something on the other is there on both: no change."""
    paths = [p for p in before.keys() | after.keys() if before.get(p) != after.get(p)]
    if any(tree[p].is_folder for p in paths for tree in (before, after) if p in tree):
        held = (_parents(before), _parents(after))
        paths = [p for p in paths if not _still_there(p, before, after, held)]
    return sorted(paths)


def _parents(tree: Tree) -> set[str]:
    return {str(parent) for path in tree for parent in PurePosixPath(path).parents}


def _still_there(path: str, before: Tree, after: Tree, held: tuple[set[str], set[str]]) -> bool:
    """Whether `path` is an empty folder on one side and a folder holding something on
    the other."""
    was, now = before.get(path), after.get(path)
    if was is not None and was.is_folder and now is None:
        return path in held[1]
    if now is not None and now.is_folder and was is None:
        return path in held[0]
    return False


@dataclass(frozen=True)
class Excluded:
    """What no snapshot holds: names skipped anywhere (the tools' ignore list) and single
    paths (the debug log), workspace-relative."""

    names: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()

    def __call__(self, rel: str) -> bool:
        return rel in self.paths or any(p in self.names for p in PurePosixPath(rel).parts)


def lstat_tree(
    root: Path, excluded: Excluded, strict: bool = False
) -> Iterator[tuple[str, os.stat_result]]:
    """The lstat of every entry under `root` (folders, files, links, anything else; links
    never followed; names in order) but the excluded, each folder before what it holds.
    A folder that cannot be listed or an entry gone before its lstat is passed over, or
    with `strict` raises OSError. (Not codur.tools.walk: a snapshot holds gitignored files
    too; only `excluded` is left out.)"""
    folders = [""]
    while folders:
        base = folders.pop()
        try:
            with os.scandir(root / base if base else root) as listing:
                listed = sorted(listing, key=lambda item: item.name)
        except OSError:
            if strict:
                raise
            continue
        for item in listed:
            rel = f"{base}/{item.name}" if base else item.name
            if item.name in excluded.names or rel in excluded.paths:  # parents already passed
                continue
            try:
                info = item.stat(follow_symlinks=False)
            except OSError:
                if strict:
                    raise
                continue
            yield rel, info
            if stat.S_ISDIR(info.st_mode):
                folders.append(rel)


@dataclass(frozen=True)
class Taken:
    """A snapshot just taken: its id in the store, its tree, the files left out because
    they did not fit under the size cap (path, size), and those that could not be read."""

    snap: str
    tree: Tree
    skipped: list[tuple[str, int]]
    unreadable: list[str] = field(default_factory=list)


def over_cap(sizes: Iterable[tuple[str, int]], cap_bytes: int) -> list[tuple[str, int]]:
    """The files that do not fit under `cap_bytes` when the smallest are taken first."""
    total, left_out = 0, []
    for path, size in sorted(sizes, key=lambda ps: (ps[1], ps[0])):
        if total + size > cap_bytes:
            left_out.append((path, size))
        else:
            total += size
    return sorted(left_out, key=lambda ps: -ps[1])
