"""What a snapshot says about the workspace: each file's kind, mode and content digest."""

from __future__ import annotations

import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath


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

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)


Tree = dict[str, Entry]
"""Workspace-relative POSIX path -> entry."""


def changed(before: Tree, after: Tree) -> list[str]:
    """Paths created, deleted or changed from `before` to `after`, sorted."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


@dataclass(frozen=True)
class Excluded:
    """What no snapshot holds: names skipped anywhere (the tools' ignore list) and single
    paths (the debug log), workspace-relative."""

    names: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()

    def __call__(self, rel: str) -> bool:
        return rel in self.paths or any(p in self.names for p in PurePosixPath(rel).parts)


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
