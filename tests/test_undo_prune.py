"""Pruning old snapshots when a run starts: by count per folder, by age everywhere, with
their git refs, the blobs only they used, and the restore points of older Codur builds."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from codur.config import load_config
from codur.events import EventBus
from codur.undo import state_root
from codur.undo.prune import AGE_EVERY_S, AGE_MARK
from codur.undo.records import History
from codur.undo.snapshot import begin
from codur.workspace import Workspace


def one_run(root: Path, run_id: str, text: str, *flags: str) -> list:
    """A run that writes `text` to a.txt (what a tool would do); its events."""
    config = load_config(root, overrides=list(flags), environ={}).config
    events: list = []
    bus = EventBus()
    bus.subscribe(events.append)
    snap = begin(Workspace(root), config, run_id, f"write {text}", bus)
    (root / "a.txt").write_text(text)
    assert snap.finish("done") == ["a.txt"]
    return events


def age(history: History, run_id: str, days: float) -> None:
    """Make a record look `days` old."""
    path = history.folder / f"{run_id}.json"
    record = json.loads(path.read_text())
    then = datetime.now(timezone.utc) - timedelta(days=days)
    record["started"] = then.isoformat(timespec="microseconds")
    path.write_text(json.dumps(record))


def test_keep_runs_prunes_this_folder_and_sweeps_unshared_blobs(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "shared.txt").write_text("in every snapshot\n")
    one_run(root, "r1", "first\n", "undo.keep_runs=2")
    (root / "a.txt").write_text("the user's\n")  # "first" is now in r1's snapshots only
    one_run(root, "r2", "second\n", "undo.keep_runs=2")
    blobs = state_root() / "blobs"
    for blob in blobs.glob("??/*"):  # old enough for the sweep's grace period
        os.utime(blob, (time.time() - 7200, time.time() - 7200))
    events = one_run(root, "r3", "third\n", "undo.keep_runs=2")
    history = History(state_root(), root)
    assert [r.run_id for r in history.records()] == ["r3", "r2"]
    prune = [e.data for e in events if e.kind == "snapshot.prune"]
    assert prune[0]["runs"] == ["r1"] and prune[0]["blobs"] >= 1
    contents = {b.read_bytes() for b in blobs.glob("??/*")}
    assert b"first\n" not in contents and {b"the user's\n", b"second\n", b"third\n"} <= contents
    assert b"in every snapshot\n" in contents
    events = one_run(root, "r4", "fourth\n", "undo.keep_runs=0")  # 0: no limit by count
    assert not [e for e in events if e.kind == "snapshot.prune"]
    assert len(History(state_root(), root).records()) == 3


def test_keep_days_prunes_every_folder_and_deletes_git_refs(git_repo: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    one_run(git_repo, "old-git", "1\n")
    one_run(plain, "old-plain", "1\n")
    age(History(state_root(), git_repo), "old-git", 20)
    age(History(state_root(), plain), "old-plain", 20)
    legacy = state_root().parent / "restore" / "20240101T000000-abcdef"
    legacy.mkdir(parents=True)
    os.utime(legacy, (time.time() - 30 * 86400, time.time() - 30 * 86400))
    refs = ["git", "for-each-ref", "--format=%(refname)", "refs/codur/"]
    assert subprocess.run(refs, cwd=git_repo, capture_output=True, text=True).stdout.split() == [
        "refs/codur/runs/old-git"
    ]
    one_run(plain, "soon-plain", "2\n", "undo.keep_days=14")  # within the hour: kept
    assert len(History(state_root(), git_repo).records()) == 1
    mark = state_root() / AGE_MARK
    os.utime(mark, (time.time() - AGE_EVERY_S - 1,) * 2)  # an hour later
    one_run(plain, "new-plain", "3\n", "undo.keep_days=14")
    assert [r.run_id for r in History(state_root(), plain).records()] == [
        "new-plain", "soon-plain"
    ]  # fmt: skip
    assert History(state_root(), git_repo).records() == []
    assert subprocess.run(refs, cwd=git_repo, capture_output=True, text=True).stdout == ""
    assert not legacy.exists()
