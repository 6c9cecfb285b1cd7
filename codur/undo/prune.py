"""Pruning: when a run starts, snapshots beyond `undo.keep_runs` in this folder and (at
most once an hour) older than `undo.keep_days` anywhere are deleted, with their git refs
and unshared blobs.

Only `undo.keep_days` reaches other folders, and no project file sets it, trusted or not
(codur.config.trust.USER_ONLY): one folder's codur.yaml never prunes another's history."""

from __future__ import annotations

import contextlib
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from codur.config import CodurConfig
from codur.events import EventBus
from codur.sandbox import Sandbox
from codur.undo.filestore import sweep
from codur.undo.gitstore import GitStore
from codur.undo.records import History, RunRecord, all_records, remembered
from codur.undo.tree import Excluded

SWEEP_GRACE_S = 3600.0
"""Blobs used within this time are never swept: another Codur run may be snapshotting
now, before its record names them."""
AGE_EVERY_S = 3600.0
"""The age limit reads every folder's records (about 0.1 s a thousand): it is applied at
most this often; a snapshot past it lives at most this much longer."""
AGE_MARK = "pruned-by-age"
"""The file in the state folder whose mtime says when the age limit was last applied."""


def prune(history: History, config: CodurConfig, bus: EventBus) -> list[str]:
    """Delete the records (and git refs) past the limits; sweep blobs no record needs.
    Returns the run ids deleted."""
    keep_runs, keep_days = config.undo.keep_runs, config.undo.keep_days
    doomed: dict[tuple[str, str], tuple[History, RunRecord]] = {}
    if keep_runs:  # the run starting now will be one of the last `keep_runs`; runs that
        # changed nothing are counted apart, so they never push an undoable run out
        runs = history.runs()
        kept = [r for r in runs if r.snapshots][keep_runs - 1 :]
        unchanged = [r for r in runs if not r.snapshots][keep_runs - 1 :]
        for record in kept + unchanged:
            doomed[(record.workspace, record.run_id)] = (history, record)
    if keep_days and _due(history.state / AGE_MARK):
        cutoff = datetime.now(timezone.utc) - timedelta(days=keep_days)
        for owner, record in all_records(history.state):
            if record.started_at < cutoff:
                doomed[(record.workspace, record.run_id)] = (owner, record)
        _legacy_restore_points(history.state.parent / "restore", cutoff.timestamp())
    for owner, record in doomed.values():
        if record.kind == "git" and Path(record.workspace).is_dir():
            git = GitStore.open(
                Path(record.workspace), history.state / "index", Excluded(), 0,
                config.tools.git_timeout_s, Sandbox.from_config(config),
            )  # fmt: skip
            if git is not None:
                git.drop(record.run_id)
        owner.delete(record.run_id)
    swept = 0
    if any(r.kind == "files" for _, r in doomed.values()):
        live = [
            snap
            for _, r in all_records(history.state)
            if r.kind == "files" and r.snapshots
            for snap in (r.start, r.end)
            if snap
        ] + remembered(history.state)
        swept = sweep(history.state / "blobs", live, SWEEP_GRACE_S)
    if doomed:
        bus.emit("snapshot.prune", runs=sorted(r.run_id for _, r in doomed.values()), blobs=swept)
    return sorted(r.run_id for _, r in doomed.values())


def _due(mark: Path) -> bool:
    """Whether the age limit is due (its mark older than AGE_EVERY_S, or none); if so,
    the mark is set to now. A mark that cannot be read or set leaves it due every run."""
    try:
        last = mark.stat().st_mtime
    except OSError:
        last = 0.0  # never applied here, or the mark cannot be read: due
    if time.time() - last < AGE_EVERY_S:
        return False
    with contextlib.suppress(OSError):  # an unwritable state folder: due every run
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.touch()
    return True


def _legacy_restore_points(folder: Path, cutoff: float) -> None:
    """Restore points of Codur before snapshots (one folder per run): kept as long as
    snapshots are, then deleted."""
    for point in folder.iterdir() if folder.is_dir() else []:
        if point.is_dir() and point.stat().st_mtime < cutoff:
            shutil.rmtree(point)
