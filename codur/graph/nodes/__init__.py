"""Graph nodes: each a function `(state, runtime) -> partial update`. None prints.

A node whose work ends in a choice of where to go returns `Command[Literal[...]]` (the
update and the destination together; the choice itself, where it is more than a line, is a
pure function such as `codur.graph.decide.decide`); every other edge is fixed in build.py.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.graph.state import AgentState
from codur.session import Session

Update = dict[str, Any] | Command
Node = Callable[[AgentState, Runtime[Session]], Any]


def traced(name: str, **tags: str) -> Callable[[Node], Node]:
    """Emit node.start / node.end (with duration, or the error) around a node; `tags` go
    into both events (e.g. graph="ask" for the ask graph's nodes). The node's update gets
    the session's `ledger` (model calls, tokens, files changed, the edit scope), so every
    checkpoint holds what a resumed run needs (a graph whose state has no `ledger` key,
    such as ask's, ignores it)."""

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: AgentState, runtime: Runtime[Session]) -> Update:
            with runtime.context.bus.span(
                "node", node=name, iteration=state.get("iterations", 0), **tags
            ) as out:
                update = func(state, runtime)
                ledger = {"ledger": runtime.context.ledger()}
                if isinstance(update, Command):
                    out["goto"] = update.goto
                    return dataclasses.replace(update, update={**(update.update or {}), **ledger})
                return {**(update or {}), **ledger}

        return node

    return wrap
