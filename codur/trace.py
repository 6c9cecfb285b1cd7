"""`traced`: node.start / node.end events around a graph node, for every graph Codur
compiles (the run graph, the execute step, the ask graph).

It sits below the graphs so that each can use it (the ask graph runs inside the run
graph's explain route); a node never prints, its events go on the session's bus.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

    from codur.session import Session

Node = Callable[[Any, "Runtime[Session]"], Any]


def traced(name: str, **tags: str) -> Callable[[Node], Node]:
    """Emit node.start / node.end (with duration, or the error) around a node; `tags` go
    into both events (e.g. graph="ask" for the ask graph's nodes)."""
    from langgraph.types import Command

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: Any, runtime: Runtime[Session]) -> Any:
            runtime.context.check_cancelled()  # a cancelled run stops between nodes
            with runtime.context.bus.span(
                "node", node=name, iteration=state.get("iterations", 0), **tags
            ) as out:
                update = func(state, runtime)
                if isinstance(update, Command):
                    out["goto"] = update.goto
                return update

        return node

    return wrap
