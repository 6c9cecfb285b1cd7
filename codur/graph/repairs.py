"""The next repair search: which state of the code it searches, how long and how deep
(codur/repair/searched.py keeps what was searched). Before the first model attempt it
gets repair.first_budget_s once, for single edits (repair.first_max_depth); after one,
the rest of repair.time_budget_s on the same code (the pairs, if only single edits were
tried), or the whole of it on code no search has seen."""

from __future__ import annotations

from typing import NamedTuple

from codur.graph.state import AgentState
from codur.repair.searched import budget_s, code_key
from codur.session import Session


def model_tried(state: AgentState) -> bool:
    """A model attempt has been made (recorded, or the outcome review is judging)."""
    outcome = state.get("outcome")
    return any(a.get("agent") for a in state.get("attempts", [])) or bool(outcome and outcome.agent)


class NextSearch(NamedTuple):
    key: str
    """The code's key (codur.repair.searched.code_key)."""
    budget_s: float
    """The seconds the search may take (0: nothing to search)."""
    max_depth: int
    """Mutations a candidate may combine (repair.first_max_depth before the first model
    attempt, repair.max_depth after)."""


def next_search(state: AgentState, session: Session) -> NextSearch:
    """Which code the next search searches, how long, and how deep."""
    key = code_key(session.ws.root)
    cfg = session.config.repair
    first = session.model_allowed and not model_tried(state)
    record = state.get("repair_searches", {}).get(key)
    depth = cfg.first_max_depth if first else cfg.max_depth
    return NextSearch(key, budget_s(record, cfg, first), depth)
