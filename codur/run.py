"""Running a task: invoke the agent graph with the run's session, and sum up the outcome."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from codur.errors import ApprovalRequired, ExitCode, LimitReached
from codur.session import Session
from codur.undo.diff import text_diff

EXIT_CODES: dict[str, ExitCode] = {
    "verified": ExitCode.OK,
    "done": ExitCode.OK,
    "unverified": ExitCode.NOT_VERIFIED,
    "stuck": ExitCode.NOT_VERIFIED,
    "limit": ExitCode.NOT_VERIFIED,
    "approval": ExitCode.APPROVAL_NEEDED,
}


@dataclass
class RunResult:
    status: str
    message: str
    iterations: int = 0
    files_changed: list[str] = field(default_factory=list)
    diff: str = ""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    final_response: str = ""
    check: str = ""
    """What the verdict rests on: the checks that ran (empty: none)."""
    outside_changes: list[str] = field(default_factory=list)
    """Files changed during the run, by Codur or by the programs it ran, outside the code
    under test (none, in an honest pass)."""
    run_id: str = ""
    run_changes: list[str] = field(default_factory=list)
    """Every file the run changed, created or deleted, by Codur or by the programs it ran
    (its snapshots differ there; `codur undo` puts them back)."""
    model_test: str = ""
    """The test the model wrote when nothing else could check the task (shown)."""
    cached_prompt_tokens: int = 0
    """Of prompt_tokens, those the provider reused from its cache (not evaluated again)."""

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_CODES[self.status]


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


def run_task(session: Session, task: str) -> RunResult:
    from langchain_core.messages import HumanMessage
    from langgraph.errors import GraphRecursionError

    from codur.graph.build import build_graph
    from codur.scope import decide_scope
    from codur.task import file_refs
    from codur.undo.snapshot import begin
    from codur.verify.generate import derived_checks

    start = time.perf_counter()
    cfg = session.config
    _tidy(session)
    session.sandbox  # noqa: B018 - decided (or refused) before anything runs, and logged
    if session.snapshot is None:  # before anything of the run can change a file
        session.snapshot = begin(session.ws, cfg, session.run_id, task, session.bus)
    limit = {"recursion_limit": cfg.runtime.recursion_limit}
    state: dict = {"task": task, "iterations": 0}
    status, message = "error", ""
    try:
        if session.scope is None:
            ignore = set(cfg.tools.ignore)
            session.scope = decide_scope(task, session.ws.root, cfg.verify.expected_file, ignore)
            session.scope.derived = derived_checks(task, session.ws, file_refs(task), cfg.verify)
        session.bus.emit("scope", **session.scope.summary())
        graph = build_graph()
        for state in graph.stream(  # noqa: B007 - the last value is the final state
            {"task": task, "messages": [HumanMessage(task)], "iterations": 0},
            limit,
            context=session,
            stream_mode="values",
        ):
            pass
        status, message = state.get("status", "done"), state.get("status_message", "")
    except LimitReached as exc:
        status, message = "limit", str(exc)
    except ApprovalRequired as exc:
        status, message = "approval", str(exc)
    except GraphRecursionError:
        status, message = "limit", f"graph step limit reached ({limit['recursion_limit']} steps)"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        session.close()
        touched = session.snapshot.finish(status)
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
