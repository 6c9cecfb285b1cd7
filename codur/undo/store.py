"""The interface both snapshot stores offer (git commits, or a content-addressed copy)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from codur.errors import CodurError
from codur.undo.tree import Entry, Taken, Tree


class SnapshotError(CodurError):
    """A snapshot could not be taken or read (git failed, the state folder is unwritable)."""


class Store(Protocol):
    kind: str
    """"git" or "files"; a run's record names the store its snapshots are in."""
    cap_bytes: int
    """Most new content one snapshot stores (config undo.max_snapshot_mb)."""

    def take(self, name: str, parent: str | None = None) -> Taken:
        """Snapshot the workspace now. `name`: the run id (a run's two snapshots share
        it); `parent`: the run's earlier snapshot."""
        ...

    def tree(self, snap: str) -> Tree:
        """The files a snapshot holds."""
        ...

    def read(self, path: str, entry: Entry) -> bytes:
        """The content of `path` as `entry` records it (a symlink: its target)."""
        ...

    def read_many(self, entries: dict[str, Entry]) -> dict[str, bytes]:
        """`read` of each file of `entries` (folders left out), at once where the store
        can (an undo of thousands of files); SnapshotError as `read`."""
        ...

    def current(self, paths: Iterable[str]) -> dict[str, Entry | None]:
        """How each path is now, as this store would record it (None: absent)."""
        ...

    def rule_files(self) -> list[Path]:
        """Files outside the workspace whose change can change what a snapshot of it
        holds (ignore rules, attributes, config)."""
        ...

    def mode_for(self, entry: Entry, existing: int | None) -> int:
        """Permission bits to give a file restored to `entry` (`existing`: its current
        permission bits, None if it is absent)."""
        ...

    def keep(self, run_id: str, snap: str) -> None:
        """Keep `snap` as the run's (a git ref; nothing outside git)."""
        ...

    def drop(self, run_id: str) -> None:
        """Forget the run's snapshots and its working files."""
        ...

    def done(self, name: str) -> None:
        """The snapshots named `name` are all taken: remove their working files."""
        ...
