"""The next repair search: which state of the code it searches and how long it may take
(codur/repair/searched.py keeps what was searched). Before the first model attempt it
gets repair.first_budget_s once; after one, the rest of repair.time_budget_s on the same
code, or the whole of it on code no search has seen."""

from __future__ import annotations

from codur.graph.state import AgentState
from codur.repair.searched import budget_s, code_key
from codur.session import Session


def model_tried(state: AgentState) -> bool:
    """A model attempt has been made (recorded, or the outcome review is judging)."""
    outcome = state.get("outcome")
    return any(a.get("agent") for a in state.get("attempts", [])) or bool(outcome and outcome.agent)


def next_search(state: AgentState, session: Session) -> tuple[str, float]:
    """The code's key and the seconds its next search may take (0: nothing to search)."""
    key = code_key(session.ws.root)
    first = session.model_allowed and not model_tried(state)
    record = state.get("repair_searches", {}).get(key)
    return key, budget_s(record, session.config.repair, first)
