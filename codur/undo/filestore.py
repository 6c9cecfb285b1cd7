"""Snapshots outside git: a content-addressed copy in the user state folder.

Each file's content is stored once as `blobs/<sha256[:2]>/<sha256>`; a snapshot is a
manifest (path -> mode, sha256, size, mtime), itself stored as a blob, so its id is its
digest. A file whose size, mtime and mode match the previous snapshot's is not read again.
Blobs no record refers to are swept when runs are pruned.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from codur.undo.store import SnapshotError
from codur.undo.tree import Entry, Excluded, Taken, Tree, empty_folders, lstat_tree, over_cap
from codur.workspace import open_regular

CHUNK = 1 << 20
RACY_S = 2.0
"""A file changed this recently may change again within the same mtime: it is read again
next time rather than trusted by its stat."""


@dataclass
class FileStore:
    root: Path
    blobs: Path
    excluded: Excluded
    cap_bytes: int
    cache: Tree = field(default_factory=dict)
    """An earlier snapshot of this workspace: files whose stat matches are not re-read."""
    kind: str = "files"

    def take(self, name: str, parent: str | None = None) -> Taken:
        cache = self.tree(parent) if parent else self.cache
        folders: list[str] = []
        found = list(self._walk(folders))
        regular = [(rel, info.st_size) for rel, info in found if stat.S_ISREG(info.st_mode)]
        skipped = over_cap(regular, self.cap_bytes)
        left_out = {p for p, _ in skipped}
        tree: Tree = {}
        unreadable = []
        now = time.time()
        for rel, info in found:
            if rel in left_out:
                continue
            try:
                entry = self._entry(rel, info, cache.get(rel), now)
            except OSError:
                unreadable.append(rel)
                continue
            tree[rel] = entry
        tree.update(empty_folders(folders, [*tree, *left_out, *unreadable]))
        manifest = {
            p: [e.mode, e.digest, e.size, e.mtime_ns, e.ctime_ns] for p, e in sorted(tree.items())
        }
        snap = self._put(json.dumps({"files": manifest}).encode())
        return Taken(snap, tree, skipped, unreadable)

    def _entry(self, rel: str, info: os.stat_result, old: Entry | None, now: float) -> Entry:
        path = self.root / rel
        if stat.S_ISLNK(info.st_mode):
            digest = self._put(os.fsencode(os.readlink(path)))
            return Entry(info.st_mode, digest, info.st_size)
        same = (
            old is not None
            and (old.mode, old.size, old.mtime_ns, old.ctime_ns)
            == (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            and self._blob(old.digest).is_file()
        )
        if same:
            os.utime(self._blob(old.digest))  # in use: fresh for the sweep's grace period
            return old  # type: ignore[return-value]
        digest = self._put_file(path)
        settled = now - max(info.st_mtime_ns, info.st_ctime_ns) / 1e9 > RACY_S
        mtime = info.st_mtime_ns if settled else 0
        return Entry(info.st_mode, digest, info.st_size, mtime, info.st_ctime_ns)

    def _walk(self, folders: list[str]) -> Iterator[tuple[str, os.stat_result]]:
        """Files and symlinks under the root (links never followed), minus the excluded;
        the folders on the way are added to `folders`."""
        for rel, info in lstat_tree(self.root, self.excluded):
            if stat.S_ISDIR(info.st_mode):
                folders.append(rel)
            elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                yield rel, info

    # --- blobs ------------------------------------------------------------------------

    def _blob(self, digest: str) -> Path:
        return self.blobs / digest[:2] / digest

    def _put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        target = self._blob(digest)
        if not target.is_file():
            self._store(target, lambda fh: fh.write(data))
        return digest

    def _put_file(self, path: Path) -> str:
        """Store a file's content: read once to hash it, and once more to copy it only if
        the store lacks it (the copy's own hash names it, should the file change)."""
        digest = _digest(path)
        if self._blob(digest).is_file():
            os.utime(self._blob(digest))  # in use: fresh for the sweep's grace period
            return digest
        hasher = hashlib.sha256()
        self.blobs.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.blobs, prefix=".incoming-")
        try:
            with open_regular(path) as src, os.fdopen(fd, "wb") as out:
                while chunk := src.read(CHUNK):
                    hasher.update(chunk)
                    out.write(chunk)
            digest = hasher.hexdigest()
            target = self._blob(digest)
            target.parent.mkdir(exist_ok=True)
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
        return digest

    def _store(self, target: Path, write: Callable[[object], object]) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".incoming-")
        try:
            with os.fdopen(fd, "wb") as out:
                write(out)
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)

    # --- the Store interface ----------------------------------------------------------

    def tree(self, snap: str) -> Tree:
        try:
            manifest = json.loads(self._blob(snap).read_bytes())["files"]
        except (OSError, ValueError, KeyError) as exc:
            raise SnapshotError(f"snapshot {snap[:12]} is missing or damaged: {exc}") from None
        # an older manifest has no ctime (4 fields): its files are read again once
        return {p: Entry(*row) for p, row in manifest.items()}

    def read(self, path: str, entry: Entry) -> bytes:
        if entry.is_folder:
            raise SnapshotError(f"{path} is a folder; it has no content")
        try:
            return self._blob(entry.digest).read_bytes()
        except OSError:
            raise SnapshotError(f"the saved copy of {path} is missing") from None

    def read_many(self, entries: dict[str, Entry]) -> dict[str, bytes]:
        return {p: self.read(p, e) for p, e in entries.items() if not e.is_folder}

    def current(self, paths: Iterable[str]) -> dict[str, Entry | None]:
        found: dict[str, Entry | None] = {}
        for path in paths:
            target = self.root / path
            try:
                info = target.lstat()
                if stat.S_ISLNK(info.st_mode):
                    link = os.fsencode(os.readlink(target))
                    found[path] = Entry(info.st_mode, hashlib.sha256(link).hexdigest())
                elif stat.S_ISREG(info.st_mode):
                    found[path] = Entry(info.st_mode, _digest(target))
                else:
                    found[path] = Entry(stat.S_IFMT(info.st_mode), "")
            except (FileNotFoundError, NotADirectoryError):  # a parent is now a file
                found[path] = None
        return found

    def rule_files(self) -> list[Path]:
        """None: only `excluded` rules what the copy holds."""
        return []

    def mode_for(self, entry: Entry, existing: int | None) -> int:
        return stat.S_IMODE(entry.mode)

    def keep(self, run_id: str, snap: str) -> None:
        """Nothing to do: a record naming the manifest keeps it (see `sweep`)."""

    def drop(self, run_id: str) -> None:
        """Nothing to do: unreferenced blobs go at the next sweep."""

    def done(self, name: str) -> None:
        """No working files."""


def _digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with open_regular(path) as fh:
        while chunk := fh.read(CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def sweep(blobs: Path, live: Iterable[str], grace_s: float) -> int:
    """Delete blobs that no live snapshot (manifest digest) refers to and that were not
    used in the last `grace_s` seconds (a run may be taking a snapshot right now).
    Returns how many were deleted."""
    store = FileStore(blobs.parent, blobs, Excluded(), 0)
    keep = set()
    for snap in live:
        keep.add(snap)
        try:
            keep.update(e.digest for e in store.tree(snap).values())
        except SnapshotError:
            continue  # a damaged manifest keeps nothing alive
    deleted = 0
    cutoff = time.time() - grace_s
    for blob in [*blobs.glob("??/*"), *blobs.glob(".incoming-*")]:
        if blob.name not in keep and blob.stat().st_mtime < cutoff:
            blob.unlink()
            deleted += 1
    return deleted
