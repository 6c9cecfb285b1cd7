"""`metered`: a run graph node's model spend, as a record in its update.

Whatever the run's meter (`Session.usage`) counted that the state's `usage` records do
not hold yet was spent by this node (or by a node before it that kept no record: a
graph run inside a node, a node whose exception was handled), so the node returns it as
a `Spent` under a key of its own. The state is then the run's account of its spend, and
a resumed run's meter goes on from it (`codur.graph.checkpoint.take_up`).
"""

from __future__ import annotations

import dataclasses
import functools
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from codur.models.usage import total

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

    from codur.session import Session

Node = Callable[[Any, "Runtime[Session]"], Any]


def metered(name: str) -> Callable[[Node], Node]:
    """Add the node's spend (if any) to its update, as `usage: {"<name>/<id>": Spent}`."""

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: Any, runtime: Runtime[Session]) -> Any:
            update = func(state, runtime)
            spent = runtime.context.usage.spent() - total(state.get("usage"))
            if not spent:
                return update
            record = {"usage": {f"{name}/{uuid.uuid4().hex[:12]}": spent}}
            if isinstance(update, Command):
                return dataclasses.replace(update, update={**(update.update or {}), **record})
            return {**(update or {}), **record}

        return node

    return wrap
