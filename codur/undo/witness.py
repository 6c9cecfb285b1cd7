"""Who changed a file while a run went on: the run (Codur's own writes, the programs it
ran) or someone else (you in an editor, another program of yours).

The witness keeps the state the run knows each file in: the start snapshot, then each
file as Codur's own write left it (hashed right after the write), and the whole folder
as each of the run's programs left it (scanned with the snapshot store before the
program starts and after it ends; a scan is spared when the folder's stats show nothing
changed since the last: `seal.py`). A file found otherwise at the next look (a scan
before a program, Codur about to write it, the end snapshot) was changed by someone
else meanwhile: it is the user's, and `codur undo` keeps it unless --force. While one
of the run's programs runs, a change cannot be told from the program's, so it counts
as the run's.
"""

from __future__ import annotations

import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from codur.undo.seal import Seal, rule_marks, sealed, stats_of, walk
from codur.undo.store import SnapshotError, Store
from codur.undo.tree import Entry, Excluded, Taken, Tree, changed


@dataclass
class Witness:
    store: Store
    name: str
    """The name of its scans in the store (its own private index in git)."""
    known: Tree
    """Each file as the run last knew it."""
    warn: Callable[[str], None]
    foreign: set[str] = field(default_factory=set)
    """Files someone other than the run changed, created or deleted."""
    unseen: set[str] = field(default_factory=set)
    """Of those, the ones a look found that no refused write has told of yet."""
    pending: set[str] = field(default_factory=set)
    """Paths Codur is changing now: taken as they are at the next settle."""
    suspects: set[str] = field(default_factory=set)
    """Paths Codur changed that were there, unknown to the run (made by someone else, or
    left out of snapshots): foreign if a later scan holds them."""
    running: int = 0
    """The run's programs running in the folder now."""
    blind: bool = False
    """A scan failed: from then on every change counts as the run's (as before)."""
    last: str | None = None
    root: Path | None = None
    """The workspace, walked for the seal (None: every look scans)."""
    excluded: Excluded = field(default_factory=Excluded)
    rules: tuple[Path, ...] = ()
    """Files outside the workspace that rule what a scan holds (`Store.rule_files`)."""
    seal: Seal | None = None
    """The folder's stats as the run last knew it (None: the next look scans)."""
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def overtaken(self, path: str) -> bool:
        """Whether someone else changed `path` since Codur last wrote it or the run began
        (found now, or by a look since: a scan before a program takes their change in as
        known, and it stays `unseen` until a write is refused for it): a write made from
        what the run had read would undo their change. Told once; the run then knows the
        file as it is now (what it writes next starts from their version). No program of
        the run running, Codur not changing it now."""
        with self.lock:
            if self.blind or self.running or path in self.pending or path not in self.known:
                return False
            now = self._current([path])
            if now is None:
                return False
            if now[path] == self.known[path] and path not in self.unseen:
                return False
            self.foreign.add(path)
            self.unseen.discard(path)
            self._set(path, now[path])
            return True

    def writing(self, *paths: str) -> None:
        """Codur is about to change `paths`: unless a program of the run is running, a
        difference from what the run knows is someone else's (the files are read at
        once: an undo of thousands)."""
        with self.lock:
            new = [p for p in paths if p not in self.pending]
            if self.blind or not new:
                return
            now = self._current(new) if self.running == 0 else None
            for path in new if now is not None else ():
                entry = now[path]
                if path in self.known and entry != self.known[path]:
                    self.foreign.add(path)
                elif path not in self.known and entry is not None:
                    self.suspects.add(path)
            self.pending.update(new)

    def wrote(self) -> None:
        """Codur's changes noted so far are made: the files as they are now are the run's."""
        with self.lock:
            if self.blind or not self.pending:
                return
            paths = sorted(self.pending)
            stats = stats_of(self.root, paths) if self.root and self.seal else {}  # before
            now = self._current(paths)  # the content is read: a change between is seen
            if now is None:
                return
            if any(e is not None and stat.S_ISDIR(e.mode) for e in now.values()):
                self.look()  # a folder moved or made: scan it (what lies in it is ours)
                return
            for path in paths:
                self._set(path, now[path])
                self.unseen.discard(path)
            if self.seal is not None:
                self.seal.wrote(stats)
            self.pending.clear()

    @contextmanager
    def program(self) -> Iterator[None]:
        """A program of the run runs in the folder: what changed before it started is
        looked at first; what changes while any runs is the run's."""
        with self.lock:
            if self.running == 0:
                self.look()
            self.running += 1
        try:
            yield
        finally:
            with self.lock:
                self.running -= 1
                if self.running == 0:
                    self.look(absorb=True)

    def look(self, absorb: bool = False) -> None:
        """Scan the folder: differences from what the run knows are someone else's
        (`absorb`: the run's, as after a program), but for the paths Codur is changing."""
        with self.lock:
            if self.blind or self._unchanged():
                return
            seal = self.seal_now()
            try:
                taken = self.store.take(self.name, parent=self.last)
            except SnapshotError as exc:
                self._blind(str(exc))
                return
            self.last, self.seal = taken.snap, seal
            self.settle(taken, absorb)

    def seal_now(self) -> Seal | None:
        """A seal of the folder as it is now, with the rule files git names now (None,
        and no seal for the rest of the run: the folder is too large or odd to seal, or
        git cannot name its rule files)."""
        if self.root is None:
            return None
        try:
            self.rules = tuple(self.store.rule_files())
        except SnapshotError:
            self.root = None
            return None
        seal = sealed(self.root, self.excluded, self.rules)
        if seal is None:
            self.root = None  # every look scans, as before
        return seal

    def _unchanged(self) -> bool:
        """Whether the folder is as the run knows it, by the seal (and the content of the
        files its stats cannot vouch for): a scan would find nothing. Any doubt (a file
        gone or odd while its content is read) means a scan, which decides."""
        if self.seal is None or self.root is None or self.pending or self.suspects:
            return False
        now = walk(self.root, self.excluded)
        if now is None:
            return False
        compare = self.seal.to_compare(now, rule_marks(self.rules))
        if compare is None:
            return False
        known = [self.known.get(p) for p in compare]
        if any(entry is None or entry.is_folder for entry in known):
            return False  # not in the run's tree (ignored, over the cap): only a scan tells
        try:
            current = self.store.current(compare) if compare else {}
        except (SnapshotError, OSError):
            return False  # changed while read: the scan tells how
        return all(current[p] == self.known[p] for p in compare)

    def settle(self, taken: Taken, absorb: bool = False) -> None:
        """Take the folder as `taken` shows it as the run's new known state, naming as
        someone else's what differs but for Codur's own pending changes (`absorb`: all)."""
        with self.lock:
            left_out = {p for p, _ in taken.skipped} | set(taken.unreadable)
            if not self.blind:
                for path in changed(self.known, taken.tree):
                    if path not in left_out and not (absorb or self._pending(path)):
                        self.foreign.add(path)
                        self.unseen.add(path)
                self.foreign |= {p for p in self.suspects if p in taken.tree}
            self.suspects.clear()
            self.pending.clear()
            self.known = dict(taken.tree)

    def done(self) -> None:
        """Its scans are over: their working files go."""
        self.store.done(self.name)

    def _pending(self, path: str) -> bool:
        """Whether Codur is changing `path`, or the folder it lies in."""
        return any(path == p or path.startswith(p + "/") for p in self.pending)

    def _set(self, path: str, entry: Entry | None) -> None:
        if entry is None:
            self.known.pop(path, None)
        else:
            self.known[path] = entry

    def _current(self, paths: list[str]) -> dict[str, Entry | None] | None:
        try:
            return self.store.current(paths)
        except SnapshotError as exc:
            self._blind(str(exc))
            return None

    def _blind(self, why: str) -> None:
        self.blind = True
        self.pending.clear()
        self.warn(
            f"snapshot: cannot follow the folder any more ({why}); files changed from now "
            "on by someone other than this run cannot be told from its own changes"
        )
