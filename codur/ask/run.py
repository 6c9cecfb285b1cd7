"""Answering one question: `answer` invokes a compiled ask graph with the run's session
and returns an AskResult (the run graph's explain route calls it too); `ask_question` is
`codur ask`'s whole run (the command's wiring is `codur.run.ask_command`). Nothing here
writes a user's file (the code index lives in Codur's own `.codur/` folder)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from codur.ask.ground import CITATION
from codur.ask.tidy import model_cited
from codur.errors import ExitCode, LimitReached
from codur.session import Session
from codur.workspace import Workspace

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

NO_ANSWER = "No answer was written; the findings so far:\n\n"
"""How an answer made of the findings alone starts (never cached)."""


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

    def end_record(self) -> dict[str, Any]:
        """The fields of `codur ask`'s end record (`ask.end`)."""
        return {
            "status": self.status,
            "message": self.message,
            "answer": self.answer,
            "citations": [asdict(c) for c in self.citations],
            "iterations": self.iterations,
            "model_calls": self.model_calls,
            "wall_s": self.wall_s,
            "files_read": self.files_read,
            "cached": self.cached,
        }


def citations(answer: str, ws: Workspace) -> list[Citation]:
    """The `path:line` references of an answer, each checked against the workspace: the
    answer's own, not the search's locations listed under an answer citing none
    (`codur.ask.tidy`)."""
    found: list[Citation] = []
    seen = set()
    for match in CITATION.finditer(model_cited(answer)):
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
    """`codur ask`: the ask graph on `question`, then the session is closed. With memory,
    a question asked before is answered from the cache (no model call) while the files
    its answer read are unchanged, a new answer is kept there, and the nodes that ran go
    into the node log (as a run's do; not with `log.enabled` off)."""
    from codur.ask.build import build_ask_graph

    memory = session.memory
    if memory is not None and session.config.log.enabled:  # the node log is a log too
        session.bus.subscribe(memory.node_sink(session.run_id))
    answered_by = _answered_by(session)
    if memory is not None and (hit := memory.cached_answer(question, answered_by)) is not None:
        session.bus.emit("ask.cached", key=hit.key, files=sorted(hit.files), added=hit.added)
        message = (
            f"answered from the cache ({hit.key}, {hit.added}): the files it read are unchanged"
        )
        cited = citations(hit.answer, session.ws)
        return AskResult(
            "done", hit.answer, message, citations=cited, files_read=sorted(hit.files), cached=True
        )
    session.require_key(session.config.ask.profile)  # exit code 2, as for a task
    try:
        result = answer(build_ask_graph(), session, question)
    finally:
        session.close()
        if memory is not None:  # the node log, even of a question that failed
            memory.save(lambda text: session.bus.emit("warning", message=text))
    written = result.answer and not result.answer.startswith(NO_ANSWER)
    if memory is not None and result.status == "done" and written:
        memory.keep_answer(question, result.files_read, result.answer, answered_by)
        memory.save(lambda text: session.bus.emit("warning", message=text))
    return result


def _answered_by(session: Session) -> str:
    """Who answers: the ask profile's name and a digest of its settings and of the ask
    config, so a cached answer is reused only for the same model and research settings."""
    import hashlib
    import json

    cfg = session.config
    name, profile = cfg.profile(cfg.ask.profile or session.profile)
    settings = {"profile": profile.model_dump(mode="json"), "ask": cfg.ask.model_dump(mode="json")}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]
    return f"{name}@{digest}"


def answer(graph: CompiledStateGraph, session: Session, question: str) -> AskResult:
    """Run the compiled ask graph on `question` with `session` (three caps:
    ask.max_iterations in the refinery, ask.max_executor_steps in executor_llm,
    ask.recursion_limit here); a cap ends it with status limit and the findings so far."""
    from langgraph.errors import GraphRecursionError

    start = time.perf_counter()
    cfg = session.config.ask
    calls = session.usage.calls
    state: dict = {"question": question}
    status, message = "done", ""
    try:
        for state in graph.stream(  # noqa: B007 - the last value is the final state
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
    text = state.get("answer", "")
    if not text and state.get("findings"):
        from codur.ask.nodes import format_findings

        text = NO_ANSWER + format_findings(state["findings"], cfg.max_finding_chars)
    cited = citations(text, session.ws)
    return AskResult(
        status,
        text,
        message,
        state.get("plan", []),
        state.get("findings", {}),
        state.get("iterations", 0),
        session.usage.calls - calls,
        cited,
        round(time.perf_counter() - start, 2),
        sorted({*state.get("files_read", []), *(c.path for c in cited if c.exists)}),
    )
