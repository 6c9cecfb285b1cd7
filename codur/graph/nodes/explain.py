"""Explain: the explain route. The task is answered from the files by the ask graph
(`codur.ask`, the graph of `codur ask`), run inside this node with the run's session, so
`codur graph` draws it as this node's subgraph. It never edits and nothing is checked:
the answer (citing path:line) is the run's reply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.runtime import Runtime

from codur.ask.run import answer
from codur.graph.nodes import traced
from codur.graph.state import AgentState
from codur.session import Session
from codur.trace import Node

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph


def explain_with(ask: CompiledStateGraph) -> Node:
    """The explain node, running the compiled ask graph `ask`."""

    @traced("explain")
    def explain(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
        result = answer(ask, runtime.context, state["task"])
        missing = [f"{c.path}:{c.line}" for c in result.citations if not c.exists]
        cited = f"{len(result.citations)} path:line citations"
        cited += f"; not found: {', '.join(missing)}" if missing else ""
        message = f"answered from the files; no file was changed ({cited})"
        return {
            "final_response": result.answer,
            "status": "done" if result.status == "done" else "limit",
            "status_message": message if result.status == "done" else result.message,
        }

    return explain
