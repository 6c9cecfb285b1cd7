"""`codur runs` (and its alias `codur undo --list`): the folder's runs, newest first, as a
table or as JSON. Light: it reads the run records only; LangGraph loads only to count the
model calls of a run Codur was killed in (from its checkpoint), so listing stays fast."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from codur.errors import ExitCode
from codur.eventlines import short
from codur.litter import alive as process_exists
from codur.ui import IO
from codur.undo import state_root
from codur.undo.records import RESUMABLE, History, RunRecord
from codur.workspace import CODUR_DIR, RUN_LOCK, Workspace

TASK_CHARS = 50
"""Characters of a task shown in the table (the JSON holds it whole)."""
COLUMNS = ["run", "started", "status", "task", "model calls", "changed", "note"]
NAMED = 3
"""Changed paths named in the table before "and N more"."""


def status(record: RunRecord) -> str:
    """The run's status as the list shows it: a run still marked running whose process
    is gone, or does not hold the run's folder (its pid reused by another Codur process),
    was killed."""
    running = alive(record.pid) and held(record.workspace, record.pid)
    if record.status == "running" and not running:
        return "killed"
    return record.status


def held(workspace: str, pid: int) -> bool:
    """Whether process `pid` holds the folder's run lock now (`hold_workspace`: the holder
    writes its pid there); True where that cannot be told (no lock file: a folder that
    could not hold one; a file system that cannot lock)."""
    lock = Path(workspace) / CODUR_DIR / RUN_LOCK
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:  # held: by that run, or by another (this resume, say)
        holder = os.pread(fd, 100, 0).split()
        return not holder or not holder[0].isdigit() or int(holder[0]) == pid
    except OSError:  # a file system that cannot lock: the pid alone tells
        return True
    finally:
        os.close(fd)  # lets go of the shared lock, if taken
    return False


def alive(pid: int) -> bool:
    """Whether a Codur process `pid` is running (a pid reused by another program is not)."""
    if pid <= 0 or not process_exists(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not cmdline.parent.parent.is_dir():
        return True  # no /proc here: trust the pid
    try:
        return b"codur" in cmdline.read_bytes()
    except OSError:  # it ended between the two looks
        return False


def resumable(record: RunRecord) -> bool:
    """Whether `codur resume` can go on with the run (killed, or stopped resumably)."""
    now = status(record)
    return bool(record.config) and (now == "killed" or now in RESUMABLE - {"running"})


def model_calls(root: Path, record: RunRecord) -> int:
    """The run's model calls: its record's, or, for a run that did not end (killed, or
    running), its last checkpoint's (the one place listing loads LangGraph)."""
    if record.status != "running":
        return record.model_calls
    from codur.graph.checkpoint import last_values
    from codur.models.usage import total

    return total(last_values(root, record.run_id).get("usage")).calls


def as_json(root: Path, record: RunRecord) -> dict[str, Any]:
    """One run as `codur runs --json` prints it."""
    return {
        "run_id": record.run_id,
        "started": record.started,
        "ended": record.ended or None,
        "status": status(record),
        "evidence": record.evidence or None,
        "task": record.task,
        "profile": record.profile or None,
        "model_calls": model_calls(root, record),
        "changed": record.changed if record.end else None,
        "snapshots": record.snapshots,
        "foreign": record.foreign,
        "undo_of": record.undo_of or None,
        "undone_by": record.undone_by or None,
        "resume": f"codur resume {record.run_id}" if resumable(record) else None,
    }


def _note(record: RunRecord) -> str:
    if record.undone_by:
        return f"undone by {record.undone_by}"
    if record.undo_of:
        return f"undo of {record.undo_of}"
    if record.foreign:
        return f"yours too: {_names(record.foreign)}"
    if resumable(record):
        return f"codur resume {record.run_id}"
    stopped = record.snapshots and not record.end and status(record) != "running"
    return "no end snapshot (Codur was stopped)" if stopped else ""


def _names(paths: list[str]) -> str:
    more = f" and {len(paths) - NAMED} more" if len(paths) > NAMED else ""
    return ", ".join(paths[:NAMED]) + more


def _row(root: Path, record: RunRecord) -> list[str]:
    when = record.started_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    changes = record.changed
    changed = "?" if not record.end else f"{len(changes)}: {_names(changes)}" if changes else "-"
    said = record.evidence or status(record)
    calls = str(model_calls(root, record))
    return [
        record.run_id,
        when,
        said,
        short(record.task, TASK_CHARS),
        calls,
        changed,
        _note(record),
    ]


def list_runs(ws: Workspace, io: IO, json_mode: bool = False) -> int:
    """The folder's runs (those that changed nothing and undos included), newest first: a
    table (run ids never folded) or, with `json_mode`, one JSON array (`as_json`)."""
    history = History(state_root(), ws.root)
    records = history.runs()
    if history.damaged:
        from codur.undo.commands import names

        io.warn(f"unreadable run records, ignored: {names([str(p) for p in history.damaged])}")
    if json_mode:
        io.json([as_json(ws.root, r) for r in records])
    elif not records:
        io.info(f"no recorded runs in {ws.root}")
    else:
        rows = [_row(ws.root, r) for r in records]
        io.table(f"Runs in {ws.root} (newest first)", COLUMNS, rows, whole=1)
    return ExitCode.OK
