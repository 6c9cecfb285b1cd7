"""Graph nodes: each a function `(state, runtime) -> partial update`. None prints."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from codur.graph.state import AgentState
from codur.session import Session

Node = Callable[[AgentState, Runtime[Session]], dict[str, Any]]


def traced(name: str) -> Callable[[Node], Node]:
    """Emit node.start / node.end (with duration, or the error) around a node."""

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: AgentState, runtime: Runtime[Session]) -> dict[str, Any]:
            with runtime.context.bus.span(
                "node", node=name, iteration=state.get("iterations", 0)
            ) as out:
                update = func(state, runtime)
                if "next_action" in update:
                    out["next_action"] = update["next_action"]
                return update

        return node

    return wrap
