"""retrieve: search_codebase for the question itself, once, before any plan.

The planner then plans from real code, and every later step (and the synthesizer) sees
the best-ranked chunks with their `path:start-end`, even when the model's own searches are
poor (a 1.5B model asked `calculate_cell_width` for one result and cited the wrong file).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from codur.ask.nodes import ask_config, traced
from codur.ask.state import AskState
from codur.session import Session
from codur.tools.code import search_codebase


@traced("retrieve")
def retrieve(state: AskState, runtime: Runtime[Session]) -> dict:
    n = ask_config(runtime).retrieve_results
    if n == 0:
        return {}
    session = runtime.context
    found = search_codebase(session.tool_context(), state["question"], n)
    where = [hit.chunk.where for hit in found.hits]
    session.bus.emit("ask.retrieve", query=state["question"], hits=where)
    read = {*(state.get("files_read") or []), *(hit.chunk.path for hit in found.hits)}
    return {"retrieved": str(found), "files_read": sorted(read)}
