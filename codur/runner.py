"""One `codur TASK` run: wire config, events, log and terminal, run the task, report."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from codur import __version__
from codur.config import LoadedConfig
from codur.errors import CodurError, ExitCode
from codur.events import EventBus
from codur.log import JsonlLog, Redactor, secret_values
from codur.ui import IO


def run_command(
    loaded: LoadedConfig,
    workdir: Path,
    task: str,
    *,
    profile: str | None,
    verbose: bool,
    json_mode: bool,
) -> int:
    from codur.run import RunResult, run_task
    from codur.session import Session
    from codur.workspace import Workspace

    cfg = loaded.config
    cfg.profile(profile)  # an unknown --profile is a usage error before anything runs
    key_envs = [p.api_key_env for p in cfg.llm.profiles.values() if p.api_key_env]
    redact = Redactor(secret_values(os.environ, key_envs))
    io = IO(verbose=verbose, json_mode=json_mode, redact=redact)
    bus = EventBus()
    interactive = sys.stdin.isatty() and not json_mode
    session = Session(
        cfg,
        Workspace(workdir),
        bus,
        profile=profile,
        confirm=io.confirm if interactive else None,
    )
    log = None
    if cfg.log.enabled:
        log = JsonlLog(cfg.log_path(workdir), session.run_id, redact, cfg.log.max_field_chars)
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
        )
        try:
            result: RunResult = run_task(session, task)
        except CodurError as exc:
            bus.emit("run.end", status="error", error=str(exc), exit_code=int(exc.exit_code))
            raise
        except KeyboardInterrupt:
            bus.emit("run.end", status="interrupted", exit_code=int(ExitCode.INTERRUPTED))
            io.error("interrupted")
            raise
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
            exit_code=int(result.exit_code),
        )
    finally:
        if log is not None:
            log.close()
    _report(io, result, log.path if log else None, workdir)
    return result.exit_code


def _report(io: IO, result, log_path: Path | None, workdir: Path) -> None:
    """The final summary: status, diff, files, counts, time, and how to undo the run."""
    if result.final_response:
        io.raw(result.final_response)
    io.diff(result.diff)
    line = f"{result.status}: {result.message}"
    if result.status in ("verified", "done"):
        io.success(line)
    else:
        io.info(line)
    if result.model_test:
        io.info("checked with this test the model wrote from the task (kept outside the folder):")
        io.raw(result.model_test)
    if result.check:
        outside = ", ".join(result.outside_changes) or "none"
        io.info(f"checked by: {result.check} | changed outside the code under test: {outside}")
    io.info(
        f"files changed: {', '.join(result.files_changed) or 'none'} | iterations: "
        f"{result.iterations} | model calls: {result.model_calls} | tokens: "
        f"{result.prompt_tokens}+{result.completion_tokens} ({result.cached_prompt_tokens} "
        f"prompt tokens cached) | wall time: {result.wall_s}s"
    )
    if result.run_changes:
        here = workdir == Path.cwd().resolve()
        undo = "codur undo" + ("" if here else f" -C {shlex.quote(str(workdir))}")
        io.info(f"run {result.run_id}: {len(result.run_changes)} file(s) changed | undo: {undo}")
    if log_path is not None:
        io.info(f"debug log: {log_path}")
