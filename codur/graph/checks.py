"""Verification as the graph uses it: what to check for this task, and running it."""

from __future__ import annotations

from codur.graph.state import AgentState
from codur.session import Session
from codur.task import file_refs
from codur.verify.check import Verdict, verify
from codur.verify.target import Target, find_target


def target_for(state: AgentState, session: Session) -> Target | None:
    """The check for this task: decided from what is in the folder, never by keywords."""
    refs = file_refs(state["task"]) or list(state.get("context_files", {}))
    return find_target(session.ws, refs, session.config.verify)


def run_check(target: Target, session: Session) -> Verdict:
    return verify(session.ws, target, session.config.verify, session.bus)
