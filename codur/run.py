"""Running a task, the one place: `run_command` wires config, events, the debug log and
the terminal around `run_task`, which invokes the agent graph with the run's session and
sums up the outcome (a RunResult).

Every way a run can end leaves an end record (`run.end`) in the debug log: a result, a
typed error (its exit code), an interruption (Ctrl-C, SIGTERM, SIGHUP, a closed output)
or a bug (exit code 4, with the traceback in the log only).
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from codur import __version__
from codur.config import LoadedConfig
from codur.errors import (
    ApprovalRequired,
    CodurError,
    ExitCode,
    Interrupted,
    LimitReached,
)
from codur.events import EventBus
from codur.log import JsonlLog, Redactor, log_path, secret_values
from codur.report import report
from codur.result import EXIT_CODES, RunResult
from codur.session import Session
from codur.ui import IO
from codur.undo.diff import text_diff
from codur.undo.records import RESUMABLE, RunRecord
from codur.workspace import Workspace

if TYPE_CHECKING:
    from codur.graph.checkpoint import Saved
    from codur.undo.snapshot import RunSnapshot

__all__ = ["EXIT_CODES", "InternalError", "RunResult", "run_command", "run_task"]


class InternalError(CodurError):
    """An unexpected exception inside Codur: a bug (the traceback is in the debug log)."""

    exit_code = ExitCode.ERROR


def run_command(
    loaded: LoadedConfig,
    workdir: Path,
    task: str,
    *,
    profile: str | None,
    verbose: bool,
    json_mode: bool,
    resume: RunRecord | None = None,
) -> int:
    """Run `task` (or, with `resume`, go on with that interrupted run from its last
    checkpoint) with events, the debug log and the terminal wired; the exit code."""
    cfg = loaded.config
    cfg.profile(profile)  # an unknown --profile is a usage error before anything runs
    key_envs = [p.api_key_env for p in cfg.llm.profiles.values() if p.api_key_env]
    redact = Redactor(secret_values(os.environ, key_envs))
    io = IO(verbose=verbose, json_mode=json_mode, redact=redact)
    for warning in loaded.warnings:
        io.warn(warning)
    bus = EventBus()
    interactive = sys.stdin.isatty() and not json_mode
    ws = Workspace(workdir)
    session = Session(
        cfg,
        ws,
        bus,
        profile=profile,
        confirm=io.confirm if interactive else None,
        redact=redact,
    )
    if resume is not None:
        session.run_id = resume.run_id
    log = None
    if cfg.log.enabled:
        log = JsonlLog(log_path(cfg, ws), session.run_id, redact, cfg.log.max_field_chars)
        bus.subscribe(log)
    bus.subscribe(io.on_event)
    try:
        bus.emit(
            "run.start",
            run_id=session.run_id,
            version=__version__,
            task=task,
            workdir=str(workdir),
            profile=profile or cfg.llm.default_profile,
            config=cfg.model_dump(mode="json"),
            config_layers=loaded.layers,
            warnings=loaded.warnings,
            resumed=resume is not None,
        )
        try:
            result: RunResult = run_task(session, task, resume)
        except CodurError as exc:
            bus.emit("run.end", status="error", error=str(exc), exit_code=int(exc.exit_code))
            raise
        except Interrupted as exc:
            bus.emit("run.end", status="interrupted", signal=str(exc), exit_code=exc.exit_code)
            raise
        except KeyboardInterrupt:
            bus.emit("run.end", status="interrupted", exit_code=int(ExitCode.INTERRUPTED))
            raise
        except Exception as exc:  # noqa: BLE001 - a bug: recorded, then a one-line error
            error = f"internal error: {type(exc).__name__}: {exc}"
            bus.emit(
                "run.end",
                status="error",
                error=error,
                traceback=traceback.format_exc(),
                exit_code=int(ExitCode.ERROR),
            )
            where = f"; the traceback is in {log.path}" if log else ""
            raise InternalError(f"{error} (a bug: please report it{where})") from exc
        bus.emit(
            "run.end",
            status=result.status,
            message=result.message,
            iterations=result.iterations,
            files_changed=result.files_changed,
            diff=result.diff,
            model_calls=result.model_calls,
            prompt_tokens=result.prompt_tokens,
            cached_prompt_tokens=result.cached_prompt_tokens,
            completion_tokens=result.completion_tokens,
            wall_s=result.wall_s,
            check=result.check,
            outside_changes=result.outside_changes,
            run_changes=result.run_changes,
            final_response=result.final_response,
            exit_code=int(result.exit_code),
        )
    finally:
        if log is not None:
            log.close()
    report(io, result, log.path if log else None, cfg.display, workdir)
    return result.exit_code


def _begin(session: Session, task: str) -> RunSnapshot:
    """Snapshot the workspace before the run (pruning old runs, and their checkpoints)."""
    from codur.graph.checkpoint import keep_only
    from codur.undo.snapshot import begin

    snap = begin(
        session.ws, session.config, session.run_id, task, session.bus, profile=session.profile
    )
    keep_only(session.ws.root, [r.run_id for r in snap.history.runs()])
    return snap


def _resume(session: Session, record: RunRecord) -> Saved | None:
    """Take up `record`'s run: its snapshots, and its session as its last checkpoint
    left it (None: it had none, so it starts again from the task)."""
    from codur.graph.checkpoint import last_checkpoint
    from codur.undo.snapshot import reopen

    saved = last_checkpoint(session.ws.root, record.run_id)
    session.snapshot = reopen(session.ws, session.config, record, session.bus)
    if saved is not None and "ledger" in saved.values:
        session.restore(saved.values["ledger"])
    session.bus.emit(
        "run.resume",
        run_id=record.run_id,
        step=saved.step if saved else None,
        next=list(saved.next) if saved else [],
        model_calls=session.usage.calls,
    )
    return saved


def _decide_scope(session: Session, task: str) -> None:
    """The run's edit scope, decided once (a resumed run has its checkpoint's), logged."""
    from codur.scope import decide_scope
    from codur.task import file_refs
    from codur.verify.generate import derived_checks

    cfg = session.config
    if session.scope is None:
        ignore = set(cfg.tools.ignore)
        session.scope = decide_scope(task, session.ws.root, cfg.verify.expected_file, ignore)
        session.scope.derived = derived_checks(task, session.ws, file_refs(task), cfg.verify)
    session.bus.emit("scope", **session.scope.summary())


def changes(session: Session) -> tuple[list[str], str]:
    """Files Codur changed in the run and their unified diff, against the snapshot taken
    before the run."""
    paths, parts = [], []
    for path in session.written():
        before = session.snapshot.original(path) if session.snapshot else None
        target = session.ws.resolve(path)
        after = target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None
        if before == after:
            continue
        paths.append(path)
        parts.append(text_diff(path, before, after))
    return paths, "".join(parts)


def _tidy(session: Session) -> None:
    """Remove what an interrupted Codur left: temporary files of atomic writes in the
    workspace, temporary folders of Codur processes that are gone."""
    from codur.litter import sweep_temp, sweep_workspace

    files = sweep_workspace(session.ws.root, session.config.tools.ignore)
    temp = [str(p) for p in sweep_temp()]
    if files or temp:
        session.bus.emit("litter.removed", files=files, temp=temp)


def run_task(session: Session, task: str, resume: RunRecord | None = None) -> RunResult:
    """Run `task` through the graph (checkpointed after every step unless
    `runs.checkpoints` is off); with `resume`, go on with that run from its last
    checkpoint, its session restored from the checkpoint's ledger."""
    from langchain_core.messages import HumanMessage
    from langgraph.errors import GraphRecursionError

    from codur.graph.build import build_graph
    from codur.graph.checkpoint import forget, open_saver, thread

    start = time.perf_counter()
    cfg = session.config
    _tidy(session)
    session.sandbox  # noqa: B018 - decided (or refused) before anything runs, and logged
    saved = _resume(session, resume) if resume is not None else None
    if session.snapshot is None:  # before anything of the run can change a file
        session.snapshot = _begin(session, task)
    limit = cfg.runtime.recursion_limit - (saved.step + 1 if saved else 0)
    inputs = {"task": task, "messages": [HumanMessage(task)], "iterations": 0}
    state: dict = dict(saved.values) if saved else {"task": task, "iterations": 0}
    status, message = "error", ""
    try:
        _decide_scope(session, task)
        with ExitStack() as stack:
            checkpoints = cfg.runs.checkpoints
            saver = stack.enter_context(open_saver(session.ws.root)) if checkpoints else None
            graph = build_graph(saver)
            config = {"recursion_limit": max(1, limit), **thread(session.run_id)}
            if saved is None or saved.next:  # else it had ended: its last state is the end
                for state in graph.stream(  # noqa: B007 - the last value is the final state
                    None if saved else inputs,
                    config,
                    context=session,
                    stream_mode="values",
                    durability="sync",
                ):
                    pass
        status, message = state.get("status", "done"), state.get("status_message", "")
    except LimitReached as exc:
        status, message = "limit", str(exc)
    except ApprovalRequired as exc:
        status, message = "approval", str(exc)
    except GraphRecursionError:
        steps = cfg.runtime.recursion_limit
        status, message = "limit", f"graph step limit reached ({steps} steps)"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        session.close()
        touched = session.snapshot.finish(status, session.usage.calls)
        if cfg.runs.checkpoints and status not in RESUMABLE:
            forget(session.ws.root, [session.run_id])  # it ended: nothing to resume
    files, diff = changes(session)
    verdict = state.get("verification")
    return RunResult(
        status,
        message,
        state.get("iterations", 0),
        files,
        diff,
        session.usage.calls,
        session.usage.prompt_tokens,
        session.usage.completion_tokens,
        round(time.perf_counter() - start, 2),
        state.get("final_response", ""),
        check=verdict.rests_on if verdict is not None else "",
        outside_changes=(
            session.scope.outside(touched, session.snapshot.start) if session.scope else touched
        ),
        run_id=session.run_id,
        run_changes=touched,
        model_test=(session.scope.model_test or "") if session.scope else "",
        cached_prompt_tokens=session.usage.cached_prompt_tokens,
    )
