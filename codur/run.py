"""Running a task or a question: `task_command` (`codur run`) and `ask_command` (`codur
ask`) hand their work to `codur.command.wired` (config, events, the debug log, the
terminal): `run_task` invokes the agent graph with the run's session and sums up the
outcome (a RunResult); `codur.ask.run.ask_question` invokes the ask graph (an AskResult).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codur.ask.run import AskResult, ask_question
from codur.command import How, InternalError, wired
from codur.config import LoadedConfig
from codur.errors import (
    ApprovalRequired,
    CodurError,
    ExitCode,
    LimitReached,
)
from codur.memory.session import Exchange, SessionMemory
from codur.promptbook import PromptBook
from codur.report import left_changed, report, report_answer
from codur.result import EXIT_CODES, RunResult
from codur.session import Session
from codur.ui import IO
from codur.undo.records import RESUMABLE, RunRecord
from codur.writes import read_only

if TYPE_CHECKING:
    from codur.graph.checkpoint import Saved
    from codur.verify.strength import Strength

__all__ = ["EXIT_CODES", "InternalError", "RunResult", "ask_command", "run_task", "task_command"]


def task_command(
    loaded: LoadedConfig,
    workdir: Path,
    task: str,
    *,
    profile: str | None,
    verbose: bool,
    json_mode: bool,
    chat: SessionMemory | None = None,
    models: dict[str, Any] | None = None,
    resume: RunRecord | None = None,
) -> int:
    """`codur run`: the task through the agent graph, then the summary. `chat`: the
    session memory of the `codur chat` session the task is a line of (told to the
    prompts, and updated); `models`: the chat models its earlier runs built (the run adds
    those it builds); `resume`: go on with that interrupted run from its last checkpoint
    (`codur resume`)."""

    def show(io: IO, result: RunResult, log: Path | None) -> None:
        report(io, result, log, loaded.config.display, workdir)
        if chat is not None:
            for path in result.files_read:
                chat.note_read(path)
            reply = result.final_response or result.message
            changed = tuple(result.files_changed)
            chat.remember(Exchange(task, result.status, reply, changed, result.last_error))

    book = PromptBook(loaded.config.prompts)  # the session's, and the chat context's words
    context = chat.context(book) if chat is not None else ""

    def work(session: Session, task: str) -> RunResult:
        return run_task(session, task, resume)

    run_id = resume.run_id if resume else None
    how = How(profile, verbose, json_mode, context, models, run_id, prompts=book)
    return wired(loaded, workdir, task, "run", work, show, how)


def ask_command(
    loaded: LoadedConfig,
    workdir: Path,
    question: str,
    *,
    profile: str | None,
    verbose: bool,
    json_mode: bool,
) -> int:
    """`codur ask`: the answer printed (or, with --json, JSONL events ending in `ask.end`
    that carries the answer); exit 0 when the answer was written."""

    def show(io: IO, result: AskResult, log: Path | None) -> None:
        report_answer(io, result)

    how = How(profile, verbose, json_mode)
    return wired(loaded, workdir, question, "ask", ask_question, show, how)


def changes(session: Session) -> tuple[list[str], str]:
    """Files Codur changed in the run and their unified diff, against the snapshot taken
    before the run."""
    found = session.changes.diffs()
    return [path for path, _ in found], "".join(diff for _, diff in found)


def _tidy(session: Session) -> None:
    """Remove what an interrupted Codur left: temporary files of atomic writes in the
    workspace, temporary folders of Codur processes that are gone."""
    from codur.litter import sweep_temp, sweep_workspace

    files = sweep_workspace(session.ws.root, session.config.tools.ignore)
    temp = [str(p) for p in sweep_temp()]
    if files or temp:
        session.bus.emit("litter.removed", files=files, temp=temp)


def run_task(session: Session, task: str, resume: RunRecord | None = None) -> RunResult:
    """Run `task` through the graph, checkpointed after every step (unless
    `runs.checkpoints` is off); with `resume`, go on with that run from its last
    checkpoint, its session as the checkpoint left it (codur/graph/checkpoint.py). Three
    steps: open the run, run the graph, close the run; then its result."""
    from langgraph.errors import GraphRecursionError

    start = time.perf_counter()
    saved = _open(session, task, resume)
    state: dict = dict(saved.values) if saved else {"task": task, "iterations": 0}
    status, message, raised = "error", "", True
    try:
        for state in _graph(session, task, saved):  # noqa: B007 - the last is the final state
            pass
        status, message = state.get("status", "done"), state.get("status_message", "")
        raised = False
    except (LimitReached, ApprovalRequired, GraphRecursionError) as exc:
        status, message = _stopped(exc, session.config.runtime.recursion_limit)
        raised = False
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except CodurError as exc:
        if exc.exit_code in (ExitCode.USAGE, ExitCode.PROJECT_ENV):  # nothing ran
            status = "refused" if exc.exit_code == ExitCode.USAGE else "unrunnable"
        raise
    finally:
        evidence, touched = _close(session, state, status)
        if raised and touched:  # no summary will say it: the error's line alone follows
            session.bus.emit("warning", message=left_changed(session.run_id, touched))
    return _result(session, state, (status, message), evidence, touched, start)


def _load_model_early(session: Session) -> None:
    """An embedded model starts loading now, on a thread, while the run probes the
    project's Python, checks and searches on the other core (codur.models.local_early),
    unless the run may call no model or replays its recording's replies. Not earlier:
    its own imports (llama_cpp, numpy) would then compete with the run's for the GIL."""
    llm = session.config.llm
    name = (session.profile or llm.default_profile).removeprefix("llm:")
    if session.model_allowed and not session.config.runs.replay and name in llm.profiles:
        from codur.models.local_early import load_early

        load_early(llm.profiles[name])


def _open(session: Session, task: str, resume: RunRecord | None) -> Saved | None:
    """Before anything of the run can change a file: what an interrupted Codur left is
    tidied, the sandbox decided, a resumed run's checkpoint taken up, the snapshot begun,
    the node log subscribed. Returns the checkpoint (None: a new run)."""
    from codur.graph.checkpoint import keep_only, take_up
    from codur.undo.snapshot import begin

    cfg = session.config
    _tidy(session)
    session.sandbox  # noqa: B018 - decided (or refused) before anything runs, and logged
    saved = take_up(session, resume) if resume is not None else None
    if session.snapshot is None:  # before anything of the run can change a file
        session.changes.snapshot = begin(
            session.ws, cfg, session.run_id, task, session.bus, profile=session.profile,
            box=session.sandbox,
        )  # fmt: skip
        keep_only(session.ws.root, [r.run_id for r in session.snapshot.history.runs()])
    if session.memory is not None and cfg.log.enabled:  # the node log is a log too
        session.bus.subscribe(session.memory.node_sink(session.run_id))
    return saved


def _graph(session: Session, task: str, saved: Saved | None) -> Iterator[dict]:
    """The run: the project's Python probed, the edit scope decided (once: a resumed run
    has its checkpoint's), the planned check's needs met, then the graph's states."""
    from codur.graph.checkpoint import run_graph
    from codur.graph.nodes.textual_pre_plan import read_reference
    from codur.scope import decide_scope
    from codur.task import file_refs
    from codur.verify.derived_checks import derived_checks
    from codur.verify.preflight import (
        planned_check,
        require_inside,
        require_program,
        require_pytest,
    )

    cfg = session.config
    _load_model_early(session)
    session.interpreter  # noqa: B018 - the project's Python, probed before anything runs
    first: dict = {}
    if saved is None:  # decided once (a resumed run has its checkpoint's)
        for ref in file_refs(task):  # a bad @file is refused before any file is parsed
            read_reference(session, ref, f"@{ref}")
        ignore = set(cfg.tools.ignore)
        session.changes.scope = decide_scope(
            task,
            session.ws.root,
            cfg.verify.expected_file,
            ignore,
            cfg.verify.allow_edit,
            cfg.verify.test_command or (),
        )
        session.scope.watch_site(session.interpreter.site_packages)
        for target in session.scope.targets:  # said now, not after the model's first reply
            snapshot = session.snapshot
            if why := read_only(session.ws, target) or (snapshot and snapshot.uncovered(target)):
                session.bus.emit("warning", message=why)
        derived = derived_checks(task, session.ws, file_refs(task), cfg.verify)
        first = {"scope": session.scope, "derived": derived}
    derived = first["derived"] if saved is None else saved.values.get("derived")
    check = planned_check(session.tool_context(), cfg.verify, task, derived)
    require_pytest(check, session.interpreter)  # before any program or model call
    require_program(check, session.ws.root, session.tool_context().activation().get("PATH"))
    require_inside(cfg.verify, session.ws)
    session.require_key()  # a missing API key: exit code 2 before anything runs
    if session.scope is not None:
        shown = {"derived": derived[1] if derived else ""}
        session.bus.emit("scope", **session.scope.summary(), **shown)
        for path in session.scope.locked:
            session.bus.emit("scope.locked", path=path)
    yield from run_graph(session, task, saved, first)


def _stopped(exc: Exception, recursion_limit: int) -> tuple[str, str]:
    """The status and message of a run a limit or a missing approval stopped."""
    if isinstance(exc, LimitReached):
        return "limit", str(exc)
    if isinstance(exc, ApprovalRequired):
        return "approval", str(exc)
    return "limit", f"graph step limit reached ({recursion_limit} steps)"  # GraphRecursionError


def _close(session: Session, state: dict, status: str) -> tuple[Strength | None, list[str]]:
    """However the run ended: the session closed, the snapshot finished (its evidence and
    the files the run touched returned), the checkpoint of a run that ended forgotten,
    memory saved (with a standing preference the planner took the task as)."""
    from codur.graph.checkpoint import forget
    from codur.graph.summary import evidence_of

    cfg = session.config
    session.close()
    evidence = evidence_of(state, status)
    said = evidence.description if evidence is not None else ""
    touched = session.snapshot.finish(status, session.usage.calls, said)
    if cfg.runs.checkpoints and status not in RESUMABLE:
        forget(session.ws.root, [session.run_id])  # it ended: nothing to resume
    if session.memory is not None:  # after the snapshot: memory is no change of the run
        preference = state.get("preference")
        if preference is not None:  # the planner took the task as a standing preference
            session.memory.remember_preference(preference.text, preference.scope)
        session.memory.save(lambda message: session.bus.emit("warning", message=message))
    return evidence, touched


def _result(
    session: Session,
    state: dict,
    ending: tuple[str, str],
    evidence: Strength | None,
    touched: list[str],
    start: float,
) -> RunResult:
    """The run's result: how it ended, what it changed (and the diff), what it cost."""
    from codur.graph.summary import check_line, plan_fields
    from codur.graph.working import working_memory

    status, message = ending
    files, diff = changes(session)
    working = working_memory(state, session.config.planning.keep_feedback_messages)
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
        check=check_line(state),
        evidence=evidence,
        outside_changes=(
            session.scope.outside(touched, session.snapshot.start) if session.scope else touched
        ),
        run_id=session.run_id,
        run_changes=touched,
        model_test=written.test if (written := state.get("model_test")) else "",
        cached_prompt_tokens=session.usage.cached_prompt_tokens,
        files_read=list(dict.fromkeys([*state.get("context_files", {}), *session.files_read])),
        last_error=working.last_error,
        messages=list(state.get("messages", [])),
        repair_reviews=list(state.get("repair_reviews", [])),
        **plan_fields(state),
    )
