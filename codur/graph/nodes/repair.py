"""Repair: search small AST edits that make the failing checks pass, without a model;
apply the smallest one found (each file approved and recorded like any edit)."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.errors import EditDeclined
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome
from codur.graph.state import AgentState
from codur.scope import ScopeError
from codur.session import Session


@traced("repair")
def repair(state: AgentState, runtime: Runtime[Session]) -> Command[Literal["verify", "review"]]:
    from codur.repair.search import search  # only runs that fail a check need it

    session = runtime.context
    failing = state["verification"]
    config = session.config
    tried = [*state.get("repairs_tried", []), failing.fingerprint]
    allows = session.scope.allows_lines if session.scope else None
    result = search(
        failing.plan, failing, session.tool_context(), config.repair, config.verify, allows
    )
    session.bus.emit(
        "repair.end",
        reason=result.reason,
        tried=result.tried,
        candidates=result.candidates,
        duration_s=result.duration_s,
        change=result.candidate.description if result.candidate else "",
        diff=result.diff,
    )
    none = Command(update={"repairs_tried": tried, "outcome": Outcome("no_repair")}, goto="review")
    if result.candidate is None:
        return none
    written = []
    for path, text in result.sources.items():
        try:
            session.write_file(path, text, by="repair")  # the scope allowed it: see `allows`
        except EditDeclined:
            continue  # suggest mode, and the user said no (the gate's event records it)
        except ScopeError:
            continue  # the whole-file check is stricter than `allows` (scope.refused logs it)
        written.append(path)
    if not written:
        return none
    outcome = Outcome(
        "repaired",
        reply=f"repair search: {result.candidate.description}",
        files_changed=tuple(written),
    )
    return Command(update={"repairs_tried": tried, "outcome": outcome}, goto="verify")
