"""A run's snapshots: the workspace before anything of the run happens and after it ends,
the files Codur itself changed in between (for the run's diff and its checks), and the
files someone else changed meanwhile (`witness.py`: undo keeps those)."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from codur import source_encoding
from codur.config import CodurConfig
from codur.events import EventBus
from codur.sandbox import Sandbox
from codur.undo import state_root
from codur.undo.filestore import FileStore
from codur.undo.gitstore import GitStore
from codur.undo.nofollow import Refused, remove_file
from codur.undo.notices import MIB, emit, left_out, listed
from codur.undo.records import RESUMABLE, History, RunRecord, now_iso
from codur.undo.restore import UndoPlan, apply_undo
from codur.undo.store import SnapshotError, Store
from codur.undo.tree import Excluded, Taken, Tree, changed
from codur.undo.witness import Witness
from codur.workspace import CODUR_DIR, Workspace

CLOCK_NS = 2_000_000_000
"""File times may be this coarse (FAT: 2 s; a time with no sub-second part is taken as
one): a file not in the start snapshot whose ctime is no older than the run's start
minus this was created (or touched) in the run."""
TICK_NS = 50_000_000
"""Where file times have sub-second parts, the kernel's file clock lags the process's
by a tick at most (a few ms): a file written by the script that started Codur, a second
before the run, was not the run's (with CLOCK_NS it was, and its check needed a yes)."""


def since_start(ctime_ns: int, began_ns: int) -> bool:
    """Whether a file time `ctime_ns` is no older than the run's start, `began_ns`, at
    the grain of the file system's clock."""
    grain = CLOCK_NS if ctime_ns % 1_000_000_000 == 0 else TICK_NS
    return ctime_ns >= began_ns - grain


def excluded(ws: Workspace, config: CodurConfig) -> Excluded:
    """What snapshots leave out: the tools' ignore list, Codur's own debug log and its
    own folder (`.codur/`: the code index, the project's memory), a recording being
    written or replayed (`--record`, `--replay`) and Codur's own standard output or error
    redirected to a file (`codur --json ... > events.jsonl`), when they lie in the
    workspace."""
    log = config.log_path(ws.root).resolve()
    paths = {ws.relative(log)} if config.log.enabled and ws.contains(log) else set()
    named = [Path(p).expanduser() for p in (config.runs.record, config.runs.replay) if p]
    for target in [*(p.resolve() for p in named), *own_output()]:
        if ws.contains(target):
            paths.add(ws.relative(target))
    return Excluded(frozenset([*config.tools.ignore, CODUR_DIR]), frozenset(paths))


def own_output() -> list[Path]:
    """The files this process's standard output and error are redirected to (Linux's
    /proc names them; elsewhere none are known)."""
    found = []
    for fd in (1, 2):
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                found.append(Path(os.readlink(f"/proc/self/fd/{fd}")))
        except OSError:
            continue  # closed, or no /proc
    return found


def open_store(
    ws: Workspace,
    config: CodurConfig,
    kind: str | None = None,
    cache: Tree | None = None,
    box: Sandbox | None = None,
) -> Store:
    """The store for `ws`: git when it lies in a git work tree, else the file store.
    `kind`: the store a record names (SnapshotError if it cannot be opened any more);
    `box`: the run's sandbox, which git runs in (default: one from `config`)."""
    state = state_root()
    skip = excluded(ws, config)
    cap = int(config.undo.max_snapshot_mb * MIB)
    if kind in (None, "git"):
        box = box if box is not None else Sandbox.from_config(config)
        timeout = config.tools.git_timeout_s
        git = GitStore.open(ws.root, state / "index", skip, cap, timeout, box)
        if git is not None:
            return git
        if kind == "git":
            raise SnapshotError(f"{ws.root} is no longer in a git repository")
    return FileStore(ws.root, state / "blobs", skip, cap, cache or {})


@dataclass
class RunSnapshot:
    ws: Workspace
    store: Store
    history: History
    record: RunRecord
    start: Tree
    bus: EventBus
    began_ns: int = 0
    """When the run started (time.time_ns())."""
    saved: dict[str, bool] = field(default_factory=dict)
    """Paths Codur itself changed in this run -> whether they existed before it."""
    warned: set[str] = field(default_factory=set)
    witness: Witness | None = None
    """Who changed what while the run went on (None: not followed)."""

    def note(self, *paths: str) -> None:
        """`paths` are about to be changed by Codur (an edit, a tool, an undo); `wrote`
        follows."""
        for path in paths:
            existed = path in self.start or os.path.lexists(self.ws.root / path)  # ignored
            self.saved.setdefault(path, existed)
        if self.witness is not None:
            self.witness.writing(*paths)

    def overtaken(self, path: str) -> bool:
        """Whether someone else changed `path` since the run last knew it (Witness.overtaken;
        False when not followed)."""
        return self.witness is not None and self.witness.overtaken(path)

    def uncovered(self, path: str) -> str | None:
        """Why a change to `path` could not be undone (None: it could): it was there
        before the run, and the start snapshot holds no copy of it (a path git or
        `tools.ignore` leaves out, or one over `undo.max_snapshot_mb`). A file made during
        the run (by Codur, or by a program of the run, a resumed one's included) is the
        run's own."""
        if path in self.start or self.saved.get(path) is False:
            return None
        try:
            made = since_start((self.ws.root / path).lstat().st_ctime_ns, self.began_ns)
        except FileNotFoundError:
            return None
        if made:
            return None
        return (
            f"{path} is not in this run's snapshot (git or tools.ignore leaves it out, or it "
            "is over undo.max_snapshot_mb), so `codur undo` could not put it back: Codur does "
            "not change it (unignore it or raise undo.max_snapshot_mb to let Codur change it)"
        )

    def wrote(self) -> None:
        """Codur's changes noted so far are made: the files as they are now are the run's."""
        if self.witness is not None:
            self.witness.wrote()

    @contextmanager
    def program(self) -> Iterator[None]:
        """One of the run's programs runs in the folder: what changes meanwhile is the
        run's (what changed before it started, and was not Codur's, is not)."""
        if self.witness is None:
            yield
            return
        with self.witness.program():
            yield

    def original(self, path: str) -> str | None:
        """The text `path` had before the run (None: it did not exist, or was too large
        to be snapshotted)."""
        entry = self.start.get(path)
        if entry is None or entry.is_folder:
            return None
        return source_encoding.decode(path, self.store.read(path, entry), errors="replace")

    def changed(self) -> list[str]:
        """Files Codur changed whose content now differs from before the run, sorted."""
        now = self.store.current(self.saved)
        return sorted(p for p in self.saved if now[p] != self.start.get(p))

    def made(self, path: str, created_only: bool = False) -> Literal["created", "changed"] | None:
        """Whether `path` was created or changed during this run, by anyone
        (`created_only`: whether it was created; cheaper, nothing is read)."""
        if path not in self.start:  # new, or never snapshotted (ignored, over the cap)
            if self.saved.get(path) is False:  # Codur made it: whatever the clocks say
                return "created"
            try:
                since = since_start((self.ws.root / path).lstat().st_ctime_ns, self.began_ns)
            except FileNotFoundError:
                return None
            return "created" if since else None
        if created_only:
            return None
        now = self.store.current([path])[path]
        if now is None or now == self.start.get(path):
            return None
        return "changed" if path in self.start else "created"

    def restore(self, path: str) -> Literal["restored", "removed"]:
        """Put `path` back as it was when the run started: its content and mode again, or
        removed when Codur created it in the run (SnapshotError: neither can be done;
        a file that is in no snapshot is never removed, since it may have been there)."""
        if path in self.start:
            plan = UndoPlan(self.record, self.start, put_back=[path])
        elif self.saved.get(path) is False:  # its folder stays: it may have been there
            try:
                remove_file(self.ws.root, path)
            except Refused as exc:
                raise SnapshotError(str(exc)) from None
            except OSError as exc:
                raise SnapshotError(f"{path}: {exc.strerror or exc}") from None
            return "removed"
        elif not os.path.lexists(self.ws.root / path):
            raise SnapshotError(f"{path} did not exist when the run started, nor does it now")
        else:
            raise SnapshotError(
                f"{path} is not in the run's start snapshot (an ignored path, one over "
                "undo.max_snapshot_mb, or one a program created), so there is no copy "
                "to restore; delete_file removes it if it should go"
            )
        problems = apply_undo(self.ws.root, self.store, plan)
        if problems:
            raise SnapshotError(problems[path])
        return "restored"

    def finish(self, status: str, model_calls: int = 0, evidence: str = "") -> list[str]:
        """Snapshot the workspace as the run leaves it and record the run (`evidence`: a
        passing run's, in a line); a run that changed nothing keeps no snapshots (unless
        it can be resumed), only its record. Returns the paths the run changed."""
        started = time.perf_counter()
        run_id = self.record.run_id
        if self.witness is not None:
            self.witness.wrote()
        taken = self.store.take(run_id, parent=self.record.start)
        if self.store.kind == "files":
            self.history.remember(taken.snap)
        changes = changed(self.start, taken.tree)
        self.record.end, self.record.ended, self.record.status = taken.snap, now_iso(), status
        self.record.changed = changes
        self.record.foreign = self._foreign(taken, changes)
        self.record.model_calls = model_calls
        self.record.evidence = evidence
        self.record.skipped = sorted({*self.record.skipped, *left_out(taken)})
        self.record.snapshots = bool(changes) or status in RESUMABLE
        if self.record.snapshots:
            self.store.keep(run_id, taken.snap)
        else:
            self.store.drop(run_id)
        self.history.save(self.record)
        self.store.done(run_id)
        emit(self.bus, "end", self.store, taken, started, self.warned)
        if self.record.foreign:
            self.bus.emit(
                "warning",
                message=f"changed during the run by someone other than it (not Codur's edits "
                f"nor the programs it ran): {listed(self.record.foreign)}; codur undo keeps "
                "them unless --force",
            )
        return changes

    def _foreign(self, end: Taken, changes: list[str]) -> list[str]:
        """Of the files the run's snapshots differ on, those someone else changed."""
        if self.witness is None:
            return sorted(set(self.record.foreign) & set(changes))
        self.witness.settle(end)
        self.witness.done()
        return sorted((self.witness.foreign | set(self.record.foreign)) & set(changes))


def begin(
    ws: Workspace,
    config: CodurConfig,
    run_id: str,
    task: str,
    bus: EventBus,
    undo_of: str = "",
    profile: str | None = None,
    box: Sandbox | None = None,
) -> RunSnapshot:
    """Prune old snapshots, then snapshot the workspace before the run does anything. The
    record keeps what `codur resume` needs: the profile and the effective config. `box`:
    the run's sandbox, which git runs in."""
    from codur.undo.prune import prune

    history = History(state_root(), ws.root)
    prune(history, config, bus)
    store = open_store(ws, config, box=box)
    cache = _cache(store, history.last_snapshot())
    began_ns = time.time_ns()
    started = time.perf_counter()
    skip = excluded(ws, config)
    witness = Witness(store, f"{run_id}-watch", {}, _warner(bus), root=ws.root, excluded=skip)
    seal = witness.seal_now()  # walked before the scan: a change between is seen
    try:
        taken = store.take(run_id)
    except SnapshotError as exc:
        if store.kind != "git":
            raise
        store.done(run_id)  # its private index goes too
        bus.emit("warning", message=f"snapshot: {exc}; copying the files instead")
        store = FileStore(ws.root, state_root() / "blobs", skip,
                          int(config.undo.max_snapshot_mb * MIB), cache)  # fmt: skip
        witness.store, witness.root = store, ws.root
        seal = witness.seal_now()
        taken = store.take(run_id)
    store.keep(run_id, taken.snap)
    if store.kind == "files":
        history.remember(taken.snap)
    record = RunRecord(
        run_id, str(ws.root), store.kind, task, now_iso(), taken.snap,
        skipped=left_out(taken), undo_of=undo_of, profile=profile or "",
        config={} if undo_of else config.model_dump(mode="json"), pid=os.getpid(),
    )  # fmt: skip
    history.save(record)
    warned: set[str] = set()
    emit(bus, "start", store, taken, started, warned)
    witness.known, witness.seal = dict(taken.tree), seal
    return RunSnapshot(
        ws, store, history, record, taken.tree, bus, began_ns, warned=warned, witness=witness
    )


def reopen(
    ws: Workspace, config: CodurConfig, record: RunRecord, bus: EventBus, box: Sandbox | None = None
) -> RunSnapshot:
    """A run's snapshot side again, for `codur resume`: the same start snapshot, the
    record marked running in this process, with no end until it ends again (killed
    while resumed, it has none: what changed since cannot be told from the run's)."""
    store = open_store(ws, config, kind=record.kind, box=box)
    start = store.tree(record.start)
    began_ns = int(record.started_at.timestamp() * 1_000_000_000)
    record.status, record.pid, record.end, record.ended = "running", os.getpid(), "", ""
    history = History(state_root(), ws.root)
    history.save(record)
    skip = excluded(ws, config)
    witness = Witness(
        store, f"{record.run_id}-watch", {}, _warner(bus), root=ws.root, excluded=skip
    )
    witness.look(absorb=True)  # the folder as the resume finds it is the run's
    return RunSnapshot(ws, store, history, record, start, bus, began_ns, witness=witness)


def _warner(bus: EventBus) -> Callable[[str], None]:
    return lambda message: bus.emit("warning", message=message)


def _cache(store: Store, last: str | None) -> Tree:
    """The workspace's last file-store snapshot, whose stats spare re-reading unchanged
    files (none: every file is read)."""
    if not isinstance(store, FileStore) or last is None:
        return {}
    try:
        return store.tree(last)
    except SnapshotError:
        return {}  # its manifest is gone (the state folder was cleaned): read every file
