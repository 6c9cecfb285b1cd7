"""`codur resume`, read from the run records (`codur.undo.records`) and the checkpoints
(`codur.graph.checkpoint`); the list of runs is in listing.py."""

from __future__ import annotations

from pydantic import ValidationError

from codur.config import CodurConfig, LoadedConfig
from codur.errors import ExitCode, UsageError
from codur.eventlines import short
from codur.result import EXIT_CODES
from codur.resume.listing import TASK_CHARS, resumable, status
from codur.ui import IO
from codur.undo import state_root
from codur.undo.commands import names
from codur.undo.records import RESUMABLE, History, RunRecord
from codur.undo.snapshot import open_store
from codur.undo.tree import changed
from codur.workspace import Workspace, hold_workspace


def resume(
    ws: Workspace, run_id: str | None, verbose: bool, json_mode: bool, approval: str | None = None
) -> int:
    """Go on with run `run_id` (default: the latest interrupted one) from its last
    checkpoint, in approval mode `approval` (None: the run's own); a run that had ended
    is only reported (its exit code)."""
    history = History(state_root(), ws.root)
    if run_id:
        record = history.find(run_id, every=True)
    else:
        record = next((r for r in history.runs() if resumable(r)), None)
        if record is None:
            raise UsageError(f"no interrupted run to resume in {ws.root} (see codur runs)")
    io = IO(json_mode=json_mode)
    with hold_workspace(ws.root, io.warn):  # another run under way (resumed too): exit 9
        record = history.find(record.run_id, every=True)  # as the process before left it
        return _resume(ws, record, verbose, json_mode, io, approval)


def _resume(
    ws: Workspace,
    record: RunRecord,
    verbose: bool,
    json_mode: bool,
    io: IO,
    approval: str | None = None,
) -> int:
    from codur.run import task_command

    if record.undo_of:
        raise UsageError(f"run {record.run_id} is an undo (of {record.undo_of}), not a task")
    if status(record) == "running":
        raise UsageError(f"run {record.run_id} is still running (process {record.pid})")
    if record.status not in RESUMABLE:
        io.info(
            f"run {record.run_id} has ended ({record.status}, {record.ended}): nothing to resume"
        )
        return EXIT_CODES.get(record.status, ExitCode.OK)
    if not record.config:
        raise UsageError(f"run {record.run_id} was recorded without its settings: not resumable")
    recorded = dict(record.config)
    if approval is not None:  # the user's choice now, as on a run's command line
        recorded["approval"] = {**recorded.get("approval", {}), "mode": approval}
    try:
        config = CodurConfig.model_validate(recorded)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        raise UsageError(
            f"run {record.run_id} was recorded by another Codur version ({where}: "
            f"{first['msg']}): start it again"
        ) from None
    if not config.runs.checkpoints:
        raise UsageError(f"run {record.run_id} kept no checkpoints (runs.checkpoints was off)")
    since = _changed_since(ws, config, record)
    if since:
        raise UsageError(
            f"run {record.run_id}: changed since it stopped: {names(since)}; a resume would "
            "take them on as the run's own changes (codur undo would put them back): "
            "start a new run, or put them back first"
        )
    loaded = LoadedConfig(config, {}, [f"run {record.run_id}'s config"])
    if not json_mode:
        task = short(record.task, TASK_CHARS)
        io.info(f"resuming run {record.run_id} ({status(record)}): {task}")
    return task_command(
        loaded,
        ws.root,
        record.task,
        profile=record.profile or None,
        verbose=verbose,
        json_mode=json_mode,
        resume=record,
    )


def _changed_since(ws: Workspace, config: CodurConfig, record: RunRecord) -> list[str]:
    """Files created, changed or deleted since the run stopped (a run Codur was killed in
    has no end snapshot: what changed since cannot be told, so none is reported)."""
    if not record.end:
        return []
    store = open_store(ws, config, kind=record.kind)
    name = f"{record.run_id}-now"
    try:
        now = store.take(name, parent=record.end).tree
    finally:
        store.done(name)
    return changed(store.tree(record.end), now)
