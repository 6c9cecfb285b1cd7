"""One JSON record per run: what ran, when, and which snapshots hold the workspace before
and after it. Records live in the user state folder, one folder per workspace."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import tempfile
import typing
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from codur.errors import UsageError

if TYPE_CHECKING:
    from pydantic import TypeAdapter


def new_run_id() -> str:
    """Sortable and unique: the UTC time to the second, and six random hex digits."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


@dataclass
class RunRecord:
    run_id: str
    workspace: str
    kind: str
    """The store holding its snapshots: git or files."""
    task: str
    started: str
    """ISO 8601, UTC (records are ordered by it)."""
    start: str
    """The snapshot before the run (a commit id, or a manifest digest)."""
    end: str = ""
    """The snapshot after it ("" while it runs, or if Codur was killed)."""
    ended: str = ""
    status: str = "running"
    changed: list[str] = field(default_factory=list)
    """Paths the run changed, created or deleted (start -> end)."""
    skipped: list[str] = field(default_factory=list)
    """Files not in the snapshots (over the size cap, or unreadable)."""
    foreign: list[str] = field(default_factory=list)
    """Of `changed`, the files someone other than the run changed while it ran (not
    Codur's edits nor the programs it ran): undo keeps them unless --force."""
    undo_of: str = ""
    """For an undo: the run it undid."""
    undone_by: str = ""
    """The undo that put this run's changes back ("" if none)."""
    snapshots: bool = True
    """False: the run ended having changed nothing, so its snapshots were dropped (the
    record stays for `codur runs`; undo and diff skip it)."""
    profile: str = ""
    """The profile chosen on the command line ("" : llm.default_profile)."""
    config: dict = field(default_factory=dict)
    """The run's effective config, as JSON (`codur resume` runs on with it)."""
    model_calls: int = 0
    """Model calls the run made (set when it ends)."""
    evidence: str = ""
    """A passing run: what its verdict rests on, in a line (`verified (project tests, 3
    passed)`, `checked against 3 docstring examples`); empty otherwise."""
    pid: int = 0
    """The Codur process running it (a run whose process is gone without an end was
    killed)."""

    @property
    def started_at(self) -> datetime:
        return datetime.fromisoformat(self.started)


RESUMABLE = frozenset({"running", "interrupted", "error", "approval"})
"""Statuses of runs `codur resume` can continue: killed, stopped by a signal, failed
(a model server gone, a crash) or stopped for an approval nobody could give."""

LAST = "last-files-snapshot"
"""File (in a workspace's records folder) naming its newest file-store snapshot."""


def workspace_key(root: Path) -> str:
    return hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]


class History:
    """The records of the workspace at `root`, under `state` (codur.undo.state_root)."""

    def __init__(self, state: Path, root: Path) -> None:
        self.state = state
        self.root = root
        self.folder = state / "runs" / workspace_key(root)
        self.damaged: list[Path] = []

    def save(self, record: RunRecord) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".record-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(dataclasses.asdict(record), fh, indent=1)
            os.replace(tmp, self.folder / f"{record.run_id}.json")
        finally:
            Path(tmp).unlink(missing_ok=True)

    def remember(self, snap: str) -> None:
        """Note the newest file-store snapshot of this workspace: the next one re-reads
        only the files whose stat changed since (kept even when no run record is)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".last-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(snap)
            os.replace(tmp, self.folder / LAST)
        finally:
            Path(tmp).unlink(missing_ok=True)

    def last_snapshot(self) -> str | None:
        """The snapshot `remember` noted (None: none yet)."""
        try:
            return (self.folder / LAST).read_text(encoding="utf-8").strip() or None
        except FileNotFoundError:
            return None

    def delete(self, run_id: str) -> None:
        (self.folder / f"{run_id}.json").unlink(missing_ok=True)

    def runs(self) -> list[RunRecord]:
        """Every recorded run of this workspace, newest first, those that changed nothing
        included (a damaged record file is named in `damaged` and otherwise left alone)."""
        records, self.damaged = _load_all(self.folder)
        return records

    def records(self) -> list[RunRecord]:
        """This workspace's runs that keep snapshots (for undo and diff), newest first."""
        return [r for r in self.runs() if r.snapshots]

    def find(self, run_id: str, every: bool = False, option: str = "--run ") -> RunRecord:
        """The run whose id is `run_id`, starts with it, or ends with it (among all runs
        with `every`, else among those with snapshots); UsageError if none or several
        match, naming it as the user gave it (`option`, e.g. "--run ", or "")."""
        records = self.runs() if every else self.records()
        exact = [r for r in records if r.run_id == run_id]
        ends = {r.run_id: (r.run_id[: len(run_id)], r.run_id[-len(run_id) :]) for r in records}
        found = exact or [r for r in records if run_id and run_id in ends[r.run_id]]
        if len(found) == 1:
            return found[0]
        option, listing = ("", "codur runs") if every else (option, "codur undo --list")
        if not found:
            raise UsageError(f"{option}{run_id}: no such run in {self.root} (see {listing})")
        names = ", ".join(r.run_id for r in found)
        raise UsageError(f"{option}{run_id}: ambiguous, it matches {names}")

    def last_to_undo(self) -> RunRecord | None:
        """The newest run that changed something and is not undone (undos themselves are
        skipped: `codur undo` twice goes two runs back; `--run` names an undo to redo)."""
        for record in self.records():
            if record.changed and not record.undone_by and not record.undo_of:
                return record
        return None


def remembered(state: Path) -> list[str]:
    """Every workspace's newest file-store snapshot (they stay live for the sweep)."""
    runs = state / "runs"
    return [p.read_text(encoding="utf-8").strip() for p in runs.glob(f"*/{LAST}")]


def all_records(state: Path) -> list[tuple[History, RunRecord]]:
    """Every workspace's records, newest first, each with its History."""
    found = []
    for folder in sorted((state / "runs").glob("*")) if (state / "runs").is_dir() else []:
        for record in _load_all(folder)[0]:
            history = History(state, Path(record.workspace))
            found.append((history, record))
    return sorted(found, key=lambda hr: hr[1].started, reverse=True)


@functools.cache
def _field_checks() -> dict[str, TypeAdapter]:
    """A strict check for each field of RunRecord (a field of another type is refused)."""
    from pydantic import ConfigDict, TypeAdapter

    hints = typing.get_type_hints(RunRecord)
    strict = ConfigDict(strict=True)
    return {
        f.name: TypeAdapter(hints[f.name], config=strict) for f in dataclasses.fields(RunRecord)
    }


def _load_all(folder: Path) -> tuple[list[RunRecord], list[Path]]:
    """The records in `folder`, newest first, and the files that are not records."""
    records, damaged = [], []
    for path in folder.glob("*.json") if folder.is_dir() else []:
        try:
            records.append(_load(path))
        except (OSError, ValueError):
            damaged.append(path)
    return sorted(records, key=lambda r: r.started, reverse=True), damaged


def _load(path: Path) -> RunRecord:
    """The record in `path`; ValueError for one that is not (bad JSON, however deep; a
    field missing or of another type; a start that is no time; an id not its name)."""
    try:  # json, not pydantic's parser: a file name that is no UTF-8 stays `\udcff`
        data = json.loads(path.read_bytes())
    except RecursionError:
        raise ValueError(f"{path.name} is nested too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} holds no record")
    fields = _field_checks()
    try:
        record = RunRecord(
            **{k: fields[k].validate_python(v) for k, v in data.items() if k in fields}
        )
    except TypeError as exc:  # a field missing
        raise ValueError(f"{path.name}: {exc}") from None
    datetime.fromisoformat(record.started)  # ValueError if it is no ISO 8601 time
    if record.run_id != path.stem:
        raise ValueError(f"{path.name} holds run {record.run_id!r}")
    return record
