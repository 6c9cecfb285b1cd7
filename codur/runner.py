"""One `codur TASK` run: wire config, events, log and terminal, run the task, report.

Every way a run can end leaves an end record (`run.end`) in the debug log: a result, a
typed error (its exit code), an interruption (Ctrl-C, SIGTERM, SIGHUP, a closed output)
or a bug (exit code 4, with the traceback in the log only).
"""

from __future__ import annotations

import os
import shlex
import sys
import traceback
from pathlib import Path

from codur import __version__
from codur.config import CodurConfig, LoadedConfig
from codur.config.sections import DisplayConfig
from codur.errors import CodurError, ExitCode, Interrupted, WorkspaceError
from codur.events import EventBus
from codur.log import JsonlLog, Redactor, secret_values
from codur.ui import IO, cut_lines
from codur.workspace import Workspace


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
) -> int:
    from codur.run import RunResult, run_task
    from codur.session import Session

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
    )
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
        )
        try:
            result: RunResult = run_task(session, task)
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
    _report(io, result, log.path if log else None, cfg.display, workdir)
    return result.exit_code


def log_path(cfg: CodurConfig, ws: Workspace) -> Path:
    """Where the debug log goes: `log.path`, confined to the workspace like any write
    (a path or symlink leading outside is refused; the file itself is never a symlink)."""
    path = Path(cfg.log.path).expanduser()
    try:
        ws.resolve(path)
    except WorkspaceError as exc:
        raise WorkspaceError(f"log.path {cfg.log.path!r}: {exc}") from None
    target = ws.root / path
    if target.is_symlink():
        raise WorkspaceError(
            f"log.path {cfg.log.path!r}: {target} is a symlink; Codur does not write "
            "through it (remove it, or set log.path)"
        )
    return target


def _report(io: IO, result, log_file: Path | None, display: DisplayConfig, workdir: Path) -> None:
    """The final summary: status, diff, files, counts, time, and how to undo the run."""
    if result.final_response:
        key = "display.max_reply_lines"
        io.raw(cut_lines(result.final_response, display.max_reply_lines, "reply", key))
    io.diff(result.diff, display.max_diff_lines)
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
    if log_file is not None:
        io.info(f"debug log: {log_file}")
