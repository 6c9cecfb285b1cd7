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
        return trace.traced(name, **tags)(learned(name)(func))

    return wrap


__all__ = ["traced"]
