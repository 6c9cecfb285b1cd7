"""`learned`: what a run graph node learned through the run's services, returned in its
update as records of the state, so that the state is the run's account of it and a
resumed run goes on from the state alone (`codur.graph.checkpoint.take_up`):

- `usage`: what the run's meter (`Session.usage`) counted that the state's records do
  not hold yet, as one `Spent` under a key of the node's own;
- `written`: the paths the run's snapshot noted as Codur's changes (`RunSnapshot.saved`:
  path -> whether it existed before the run) that the state does not hold yet.

What a node before it learned but kept no record of (a graph run inside a node, a node
whose exception was handled) is returned by the next node that learns something.
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


def learned(name: str) -> Callable[[Node], Node]:
    """Add what the node learned (if anything) to its update: `usage: {"<name>/<id>":
    Spent}`, `written: {path: existed}`."""

    def wrap(func: Node) -> Node:
        @functools.wraps(func)
        def node(state: Any, runtime: Runtime[Session]) -> Any:
            update = func(state, runtime)
            records = _records(name, state, runtime.context)
            if not records:
                return update
            if isinstance(update, Command):
                return dataclasses.replace(update, update={**(update.update or {}), **records})
            return {**(update or {}), **records}

        return node

    return wrap


def _records(name: str, state: Any, session: Session) -> dict[str, Any]:
    found: dict[str, Any] = {}
    spent = session.usage.spent() - total(state.get("usage"))
    if spent:
        found["usage"] = {f"{name}/{uuid.uuid4().hex[:12]}": spent}
    known = state.get("written") or {}
    saved = session.snapshot.saved if session.snapshot is not None else {}
    written = {path: existed for path, existed in saved.items() if path not in known}
    if written:
        found["written"] = written
    return found
