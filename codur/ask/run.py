"""Answering one question: `ask_question` invokes the ask graph with the run's session
and returns an AskResult; `ask_command` wires config, events, the debug log and the
terminal around it for `codur ask`. Nothing here writes a user's file (the code index
lives in Codur's own `.codur/` folder)."""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from codur.config import LoadedConfig
from codur.errors import ExitCode, LimitReached
from codur.events import EventBus
from codur.log import JsonlLog, Redactor, log_path, secret_values
from codur.memory.persistent import Memory
from codur.session import Session
from codur.ui import IO
from codur.workspace import Workspace

CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.py):(\d+)(?:-(\d+))?")
"""`path.py:12` or `path.py:12-30` in an answer."""


@dataclass(frozen=True)
class Citation:
    path: str
    line: int
    exists: bool
    """The path is a file of the workspace with at least `line` lines."""


@dataclass
class AskResult:
    status: str
    """done, or limit (a cap or the LLM call budget ended it early)."""
    answer: str
    message: str = ""
    plan: list[str] = field(default_factory=list)
    findings: dict[str, str] = field(default_factory=dict)
    iterations: int = 0
    model_calls: int = 0
    citations: list[Citation] = field(default_factory=list)
    wall_s: float = 0.0
    files_read: list[str] = field(default_factory=list)
    """The files the answer rests on: those its tool calls named or returned, and those
    it cites (the answer cache's key)."""
    cached: bool = False
    """Answered from the memory's cache: no model was called."""

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.OK if self.status == "done" else ExitCode.NOT_VERIFIED


def citations(answer: str, ws: Workspace) -> list[Citation]:
    """The `path:line` references of an answer, each checked against the workspace."""
    found: list[Citation] = []
    seen = set()
    for match in CITATION.finditer(answer):
        path, line = match.group(1).removeprefix("./"), int(match.group(2))
        if (path, line) in seen:
            continue
        seen.add((path, line))
        target = ws.root / path
        exists = False
        if target.is_file() and ws.contains(target.resolve()):
            with open(target, "rb") as fh:
                exists = line <= sum(1 for _ in fh) and line > 0
        found.append(Citation(path, line, exists))
    return found


def ask_question(session: Session, question: str) -> AskResult:
    """Run the ask graph on `question` (three caps: ask.max_iterations in the refinery,
    ask.max_executor_steps in executor_llm, ask.recursion_limit here)."""
    from langgraph.errors import GraphRecursionError

    from codur.ask.build import build_ask_graph

    start = time.perf_counter()
    cfg = session.config.ask
    memory = session.memory
    if memory is not None and (hit := memory.cached_answer(question)) is not None:
        session.bus.emit("ask.cached", key=hit.key, files=sorted(hit.files), added=hit.added)
        message = (
            f"answered from the cache ({hit.key}, {hit.added}): the files it read are unchanged"
        )
        return AskResult(
            "done",
            hit.answer,
            message,
            citations=citations(hit.answer, session.ws),
            wall_s=round(time.perf_counter() - start, 2),
            files_read=sorted(hit.files),
            cached=True,
        )
    state: dict = {"question": question}
    status, message = "done", ""
    try:
        for state in build_ask_graph().stream(  # noqa: B007 - the last value is the final state
            {"question": question, "iterations": 0, "findings": {}},
            {"recursion_limit": cfg.recursion_limit},
            context=session,
            stream_mode="values",
        ):
            pass
    except LimitReached as exc:
        status, message = "limit", str(exc)
    except GraphRecursionError:
        status, message = "limit", f"ask.recursion_limit reached ({cfg.recursion_limit} steps)"
    finally:
        session.close()
    answer = state.get("answer", "")
    if not answer and state.get("findings"):
        from codur.ask.nodes import format_findings

        answer = "No answer was written; the findings so far:\n\n" + format_findings(
            state["findings"], cfg.max_finding_chars
        )
    cited = citations(answer, session.ws)
    read = sorted({*state.get("files_read", []), *(c.path for c in cited if c.exists)})
    if memory is not None and status == "done" and state.get("answer"):
        profile = session.config.profile(cfg.profile or session.profile)[0]
        memory.keep_answer(question, read, answer, profile)
        memory.save(lambda text: session.bus.emit("warning", message=text))
    return AskResult(
        status,
        answer,
        message,
        state.get("plan", []),
        state.get("findings", {}),
        state.get("iterations", 0),
        session.usage.calls,
        cited,
        round(time.perf_counter() - start, 2),
        read,
    )


def ask_command(
    loaded: LoadedConfig,
    workdir: Path,
    question: str,
    *,
    profile: str | None,
    verbose: bool,
    json_mode: bool,
) -> int:
    """`codur ask`: answer, print it (or, with --json, JSONL events ending in `ask.end`
    that carries the answer), and exit 0 when the answer was written."""
    cfg = loaded.config
    cfg.profile(profile or cfg.ask.profile)
    key_envs = [p.api_key_env for p in cfg.llm.profiles.values() if p.api_key_env]
    redact = Redactor(secret_values(os.environ, key_envs))
    io = IO(verbose=verbose, json_mode=json_mode, redact=redact)
    for warning in loaded.warnings:
        io.warn(warning)
    bus = EventBus()
    ws = Workspace(workdir)
    session = Session(
        cfg, ws, bus, profile=profile, memory=Memory.open(workdir, cfg.memory, io.warn)
    )
    log = None
    if cfg.log.enabled:
        log = JsonlLog(log_path(cfg, ws), session.run_id, redact, cfg.log.max_field_chars)
        bus.subscribe(log)
    bus.subscribe(io.on_event)
    try:
        bus.emit("ask.start", run_id=session.run_id, question=question, workdir=str(workdir))
        result = ask_question(session, question)
        bus.emit(
            "ask.end",
            status=result.status,
            message=result.message,
            answer=result.answer,
            citations=[asdict(c) for c in result.citations],
            iterations=result.iterations,
            model_calls=result.model_calls,
            wall_s=result.wall_s,
            files_read=result.files_read,
            cached=result.cached,
            exit_code=int(result.exit_code),
        )
    finally:
        if log is not None:
            log.close()
    if not json_mode:
        io.raw(result.answer or "(no answer)")
        if result.status != "done":
            io.warn(result.message)
        elif result.cached:
            io.info(result.message)
    return result.exit_code
