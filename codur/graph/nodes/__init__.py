"""Graph nodes: each a function `(state, runtime) -> partial update`. None prints.

A node whose work ends in a choice of where to go returns `Command[Literal[...]]` (the
update and the destination together; the choice itself, where it is more than a line, is a
pure function such as `codur.graph.decide.decide`); every other edge is fixed in build.py.
"""

from __future__ import annotations

from collections.abc import Callable

from codur import trace
from codur.graph.learned import Node, learned


def traced(name: str, **tags: str) -> Callable[[Node], Node]:
    """A run graph node: node.start / node.end around it (`codur.trace.traced`), and what
    it learned (model spend, files written) returned in its update (`codur.graph.learned`)."""

    def wrap(func: Node) -> Node:
        node = trace.traced(name, **tags)(learned(name)(func))
        # introspection sees the node function itself, one level down: LangGraph finds
        # a subgraph a node runs (explain's ask graph, drawn by `codur graph`) among the
        # closure variables of `__wrapped__`, and follows no further
        node.__wrapped__ = func  # type: ignore[attr-defined]
        return node

    return wrap


__all__ = ["traced"]
