"""A command's wiring, the one place: config, events, the debug log, the terminal (or
none, for the Python API) and the session around a command's work (`codur run`'s
`run_task`, `codur ask`'s `ask_question`).

Every way a command can end leaves an end record (`run.end`, or `ask.end`) in the debug
log: a result, a typed error (its exit code), an interruption (Ctrl-C, SIGTERM, SIGHUP, a
closed output) or a bug (exit code 4, with the traceback in the log only).
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from codur import __version__
from codur.config import LoadedConfig
from codur.errors import (
    Cancelled,
    CodurError,
    ConfigError,
    ExitCode,
    Interrupted,
    UsageError,
    cannot_write,
)
from codur.events import EventBus
from codur.log import JsonlLog, log_path
from codur.memory.persistent import Memory
from codur.models.recording import check_target
from codur.redaction import Redactor, remember, secret_values
from codur.session import Session
from codur.ui import IO
from codur.workspace import Workspace, hold_workspace

if TYPE_CHECKING:
    from codur.models.usage import Usage
    from codur.promptbook import PromptBook


class InternalError(CodurError):
    """An unexpected exception inside Codur: a bug (the traceback is in the debug log)."""

    exit_code = ExitCode.ERROR


class Ended(Protocol):
    """What a command's work returns: its end record and its exit code."""

    @property
    def exit_code(self) -> ExitCode: ...

    def end_record(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Ended)


@dataclass
class How:
    """How a command runs: the profile, the terminal's mode, and what a caller brings."""

    profile: str | None = None
    verbose: bool = False
    json_mode: bool = False
    chat_context: str = ""
    """What a `codur chat` session said before this task."""
    models: dict[str, Any] | None = None
    """The chat models a chat's earlier runs built (the run adds those it builds)."""
    run_id: str | None = None
    """A resumed run's id (None: a new one)."""
    prompts: PromptBook | None = None
    """The prompts (None: from the config); the Python API's, with its set_prompt calls."""
    io: Callable[[Redactor], IO] | None = None
    """Builds the terminal side (None: the CLI's IO); the API's prints nothing, and no
    one is asked anything."""
    cancel: threading.Event | None = None
    """Set from another thread to stop the run at its next node, model call or program
    (`Agent.arun` cancelled); None: nothing but a signal stops it."""


def wired(
    loaded: LoadedConfig,
    workdir: Path,
    task: str,
    kind: Literal["run", "ask"],
    work: Callable[[Session, str], R],
    show: Callable[[IO, R, Path | None], None],
    how: How,
) -> int:
    """A command's wiring: `work` on the session, between `{kind}.start` and `{kind}.end`,
    then `show` (skipped when an error ends it: the CLI says that in one line). The
    session has the project's memory (None with memory.enabled off), a chat's context,
    the models a chat's earlier runs built, and `run_id` (a resumed run's; else new).
    A run (it may change files) holds the workspace from before anything is read or
    written to its end: WorkspaceBusy, having touched nothing, while another run does."""
    if not task.strip():  # nothing to do, and nothing started: no record, no model call
        raise UsageError("the question is empty" if kind == "ask" else "the task is empty")
    cfg = loaded.config
    if len(task) > cfg.runtime.max_task_chars:  # every pass over the task stays short
        what = "question" if kind == "ask" else "task"
        raise UsageError(
            f"the {what} is {len(task):,} characters, over runtime.max_task_chars "
            f"({cfg.runtime.max_task_chars:,}): put long text in a file and name it (@file)"
        )
    cfg.profile(how.profile)  # an unknown --profile is a usage error before anything runs
    if cfg.ask.profile:
        cfg.profile(cfg.ask.profile)  # questions (ask, the explain route) use it
    if cfg.runs.record:  # a user's file is refused before anything runs, not at the first call
        check_target(Path(cfg.runs.record))
    if how.cancel is not None and how.cancel.is_set():
        raise Cancelled()  # cancelled before the run started: nothing written, no record
    notes: list[str] = []  # said by the run's IO, with the config's warnings
    with hold_workspace(workdir, notes.append) if kind == "run" else nullcontext():
        return _wired(loaded, workdir, task, kind, work, show, how, notes)


def _wired(
    loaded: LoadedConfig,
    workdir: Path,
    task: str,
    kind: Literal["run", "ask"],
    work: Callable[[Session, str], R],
    show: Callable[[IO, R, Path | None], None],
    how: How,
    notes: list[str],
) -> int:
    cfg, profile = loaded.config, how.profile
    key_envs = [p.api_key_env for p in cfg.llm.profiles.values() if p.api_key_env]
    remember(secret_values(os.environ, key_envs))  # for every line said, even an error's
    redact = Redactor()
    io = (
        how.io(redact)
        if how.io
        else IO(verbose=how.verbose, json_mode=how.json_mode, redact=redact)
    )
    for warning in [*loaded.warnings, *notes]:
        io.warn(warning)
    bus = EventBus()
    interactive = sys.stdin.isatty() and not how.json_mode and how.io is None
    ws = Workspace(workdir)
    session = Session(
        cfg,
        ws,
        bus,
        profile=profile,
        confirm=io.confirm if interactive else None,
        memory=Memory.open(workdir, cfg.memory, io.warn),
        chat_context=how.chat_context,
        models=how.models if how.models is not None else {},
        redact=redact,
        prompts=how.prompts,  # type: ignore[arg-type] - None: built from the config
        cancel=how.cancel if how.cancel is not None else threading.Event(),
        **({"run_id": how.run_id} if how.run_id is not None else {}),
    )
    log = None
    if cfg.log.enabled:
        log = JsonlLog(
            log_path(cfg, ws), session.run_id, redact, cfg.log.max_field_chars, cfg.log.max_bytes
        )
        bus.subscribe(log)
    bus.subscribe(io.on_event)
    end = f"{kind}.end"
    try:
        bus.emit(
            f"{kind}.start",
            run_id=session.run_id,
            version=__version__,
            task=task,
            workdir=str(workdir),
            profile=profile or cfg.llm.default_profile,
            config=cfg.model_dump(mode="json"),
            config_layers=loaded.layers,
            warnings=loaded.warnings,
            resumed=how.run_id is not None,
        )
        try:
            result = work(session, task)
        except CodurError as exc:
            located = _located(exc, loaded)
            _end_despite(bus, end, located, end_usage(session.usage))
            if located is exc:
                raise
            raise located from None
        except Interrupted as exc:
            bus.emit(end, status="interrupted", signal=str(exc), exit_code=exc.exit_code)
            raise
        except KeyboardInterrupt:
            bus.emit(end, status="interrupted", exit_code=int(ExitCode.INTERRUPTED))
            raise
        except Exception as exc:  # noqa: BLE001 - a bug: recorded, then a one-line error
            if (machine := cannot_write(exc)) is not None:  # no bug: a full disk, ...
                _end_despite(bus, end, machine, end_usage(session.usage))
                raise machine from exc
            error = f"internal error: {type(exc).__name__}: {exc}"
            bus.emit(
                end,
                status="error",
                error=error,
                traceback=traceback.format_exc(),
                exit_code=int(ExitCode.ERROR),
                **end_usage(session.usage),
            )
            where = f"; the traceback is in {log.path}" if log else ""
            raise InternalError(f"{error} (a bug: please report it{where})") from exc
        bus.emit(end, **result.end_record(), exit_code=int(result.exit_code))
    finally:
        if log is not None:
            log.close()
    show(io, result, log.path if log else None)
    return result.exit_code


def end_usage(usage: Usage) -> dict[str, int]:
    """What a run that ended in an error had spent on the model, in its end record's
    words (`Usage.spent` as `run.end` names the fields)."""
    spent = usage.spent()
    return {
        "model_calls": spent.calls,
        "prompt_tokens": spent.prompt_tokens,
        "cached_prompt_tokens": spent.cached_prompt_tokens,
        "completion_tokens": spent.completion_tokens,
    }


def _end_despite(bus: EventBus, end: str, exc: CodurError, used: dict[str, int]) -> None:
    """The end record of a command that failed with `exc`; when the debug log cannot take
    it either (the disk that stopped the run is full), the error `exc` still says why."""
    try:
        bus.emit(end, status="error", error=str(exc), exit_code=int(exc.exit_code), **used)
    except OSError as failed:
        if cannot_write(failed) is None:
            raise
        exc.args = (f"{exc} (and the end record could not be written: {failed.strerror})",)


def _located(exc: CodurError, loaded: LoadedConfig) -> CodurError:
    """A config error found after loading, with where its key was set (`file:line`)."""
    if isinstance(exc, ConfigError) and exc.key is not None:
        return ConfigError(f"{loaded.nearest_origin(exc.key)}: {exc}")
    return exc
