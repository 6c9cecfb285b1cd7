"""`codur undo` and `codur diff`: read the run records back (the list of runs is
codur.resume.listing)."""

from __future__ import annotations

from codur.config import CodurConfig
from codur.errors import ExitCode, UndoRefused, UsageError
from codur.eventlines import short
from codur.events import EventBus
from codur.ui import IO
from codur.undo import state_root
from codur.undo.diff import run_diff
from codur.undo.records import History, RunRecord, new_run_id
from codur.undo.restore import apply_undo, plan_undo
from codur.undo.snapshot import begin, open_store
from codur.workspace import Workspace, hold_workspace

SHOWN = 5
"""Paths named in one line before "and N more"."""


def names(paths: list[str], shown: int = SHOWN) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


def undo(ws: Workspace, config: CodurConfig, run: str | None, force: bool, io: IO) -> int:
    """Put back what run `run` (default: the last one to undo) changed, holding the
    workspace (another run under way: WorkspaceBusy, nothing done)."""
    with hold_workspace(ws.root, io.warn):
        return _undo(ws, config, run, force, io)


def _undo(ws: Workspace, config: CodurConfig, run: str | None, force: bool, io: IO) -> int:
    history = History(state_root(), ws.root)
    record = history.find(run) if run else history.last_to_undo()
    warn_damaged(history, io)
    if record is None:
        stopped = _stopped_since(history, ws, config)
        hint = (
            f"; run {stopped.run_id} was stopped before its end snapshot and the folder "
            f"differs from its start: codur undo --run {stopped.run_id} says what it would "
            "put back"
            if stopped
            else " (see codur undo --list)"
        )
        raise UsageError(f"nothing to undo in {ws.root}{hint}")
    if record.undone_by:
        raise UsageError(
            f"run {record.run_id} was undone already (by {record.undone_by}; "
            f"codur undo --run {record.undone_by} puts its changes back)"
        )
    store = open_store(ws, config, kind=record.kind)
    plan = plan_undo(store, record)
    forced = f"codur undo --run {run} --force" if run else "codur undo --force"
    if plan.conflicts and plan.no_end and not force:
        raise UndoRefused(
            f"run {record.run_id} has no end snapshot (Codur was stopped before it "
            f"ended), so changes made since cannot be told from the run's: "
            f"{names(plan.conflicts)} ({forced} puts them back as before the run)"
        )
    if (plan.conflicts or plan.foreign) and not force:
        kept = [f"changed since it ended: {names(plan.conflicts)}"] if plan.conflicts else []
        if plan.foreign:
            kept.append(
                "changed during it by someone other than the run (not Codur's edits nor "
                f"the programs it ran): {names(plan.foreign)}"
            )
        raise UndoRefused(
            f"not undoing run {record.run_id}: {'; '.join(kept)} ({forced} overwrites them)"
        )
    bus = EventBus()
    bus.subscribe(io.on_event)
    task = f"undo {record.run_id}"
    snap = begin(ws, config, new_run_id(), task, bus, undo_of=record.run_id)
    snap.note(*plan.remove, *plan.put_back)  # the undo's own changes
    try:
        problems = apply_undo(ws.root, store, plan)
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM: recorded as stopped, not killed
        snap.wrote()
        snap.finish("interrupted")
        raise
    snap.wrote()
    snap.finish("incomplete" if problems else "undone")
    undone = len(problems) < len(plan.put_back) + len(plan.remove)  # else nothing was
    if undone:
        record.undone_by = snap.record.run_id
        history.save(record)
    if undone and record.undo_of:  # undoing an undo: the run it undid is back
        undid = next((r for r in history.records() if r.run_id == record.undo_of), None)
        if undid is not None and undid.undone_by == record.run_id:
            undid.undone_by = ""
            history.save(undid)
    done = [[p for p in paths if p not in problems] for paths in (plan.put_back, plan.remove)]
    if any(done) or not problems:
        _report(io, record, *done, snap.record.run_id)
    for problem in problems.values():
        io.error(f"not restored: {problem}")
    if record.skipped:
        io.warn(f"not in the run's snapshots, so not restored: {names(record.skipped)}")
    return ExitCode.ERROR if problems else ExitCode.OK


def _stopped_since(history: History, ws: Workspace, config: CodurConfig) -> RunRecord | None:
    """The newest run stopped before its end snapshot (killed) whose folder differs from
    its start: its record cannot list what it changed, so plain `codur undo`, which
    undoes only what a record lists, names it instead of taking it on (the difference
    may be the user's own since)."""
    for record in history.records():
        if record.end or record.undone_by or record.undo_of or not record.start:
            continue
        if plan_undo(open_store(ws, config, kind=record.kind), record).conflicts:
            return record
        return None  # the newest stopped run changed nothing
    return None


def _report(io: IO, record: RunRecord, put_back: list[str], removed: list[str], by: str) -> None:
    if not put_back and not removed:
        io.info(f"run {record.run_id}: the files are already as before it; nothing to do")
        return
    parts = [f"put back {len(put_back)}: {names(put_back)}"] if put_back else []
    parts += [f"removed {len(removed)} the run created: {names(removed)}"] if removed else []
    io.success(f"undid run {record.run_id} ({short(record.task, 60)}): " + "; ".join(parts))
    io.info(f"this undo is run {by}: codur undo --run {by} redoes it")


def diff(ws: Workspace, config: CodurConfig, run: str | None, io: IO) -> int:
    history = History(state_root(), ws.root)
    records = history.records()
    warn_damaged(history, io)
    found = [history.find(run, option="")] if run else records
    record, text = None, ""
    for record in (r for r in found if r is not None):
        text = run_diff(open_store(ws, config, kind=record.kind), record)
        if run or record.end or text.strip():
            break  # a run killed before it changed anything is passed over, as undo does
    else:
        record = None
    if record is None:
        raise UsageError(f"no recorded runs in {ws.root} (only runs that changed something are)")
    shown = sum(line.startswith("diff --git ") for line in text.splitlines())
    changed = shown if not record.end else len(record.changed)
    io.info(f"run {record.run_id} ({short(record.task, 60)}): {changed} file(s) changed")
    io.diff(text)
    return ExitCode.OK


def warn_damaged(history: History, io: IO) -> None:
    """Name the record files `history` read last that are no records (they are skipped)."""
    if history.damaged:
        io.warn(f"unreadable run records, ignored: {names([str(p) for p in history.damaged])}")
