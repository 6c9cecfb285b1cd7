"""retrieve: the code index searched for each part of the question, once, before any
model call; then the route. When retrieval is strong for every part (its chunks cover
`ask.min_coverage` of its words, or are every chunk holding any of them), the
synthesizer answers from them in one model call (one a part); else the research loop
(planner, executor, refinery) runs, and every node of it sees the chunks.

A project whose files all fit in `ask.max_retrieved_chars` is the evidence itself, whole
and with line numbers, and is answered in one call a part with no search (a question
about a two-function project went to the research loop: five calls, 228 s).

Searching the question up front matters even in the loop: a 1.5B model asked
`calculate_cell_width` for one result and cited the wrong file.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.ask.nodes import ask_config, traced
from codur.ask.parts import split_question
from codur.ask.retrieval import render, retrieve_parts, whole_project
from codur.ask.state import AskState
from codur.session import Session
from codur.tools.code import code_index


@traced("retrieve")
def retrieve(
    state: AskState, runtime: Runtime[Session]
) -> Command[Literal["planner", "synthesizer"]]:
    cfg = ask_config(runtime)
    session = runtime.context
    parts = split_question(state["question"])
    if cfg.retrieve_results == 0:
        session.bus.emit("ask.route", route="research", reason="ask.retrieve_results is 0")
        return Command(update={"parts": parts}, goto="planner")
    ctx = session.tool_context()
    if cfg.direct_answer and (whole := whole_project(ctx, cfg.max_retrieved_chars)):
        everything, files = whole
        reason = "the project is small: all of its files are the evidence"
        session.bus.emit("ask.route", route="answer", reason=reason)
        read = sorted(set(state.get("files_read") or []) | set(files))
        update = {"parts": parts, "retrieved": everything, "files_read": read}
        return Command(update=update, goto="synthesizer")
    found = retrieve_parts(
        code_index(ctx),
        parts,
        cfg.retrieve_results,
        session.config.tools.code_search,
    )
    for item in found:
        session.bus.emit(
            "ask.retrieve",
            query=item.part,
            hits=[hit.chunk.where for hit in item.hits],
            coverage=round(item.coverage, 2),
            exhaustive=item.exhaustive,
        )
    weak = [n for n, item in enumerate(found, 1) if not item.strong(cfg.min_coverage)]
    if not cfg.direct_answer:
        route, reason = "research", "ask.direct_answer is off"
    elif weak:
        route = "research"
        reason = f"retrieval is weak for part(s) {', '.join(map(str, weak))}"
    else:
        route, reason = "answer", "retrieval is strong for every part"
    session.bus.emit("ask.route", route=route, reason=reason)
    read = set(state.get("files_read") or []).union(*(item.files for item in found))
    update = {
        "parts": parts,
        "retrieved": render(found, cfg.max_retrieved_chars),
        "sources": [  # a weak part's chunks are not where its answer is
            [hit.chunk.where for hit in item.hits] if item.strong(cfg.min_coverage) else []
            for item in found
        ],
        "files_read": sorted(read),
    }
    return Command(update=update, goto="synthesizer" if route == "answer" else "planner")
