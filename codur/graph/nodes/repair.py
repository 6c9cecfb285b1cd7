"""Repair: search small AST edits that make the failing checks pass, without a model;
apply the smallest one found (each file approved and recorded like any edit). A fix that
only changes constants is reviewed first (codur/repair/review.py): a rejected one is not
applied, an unconfirmed one cannot end the run verified. How long the search may take,
and which candidates an earlier search of the same code tried: codur/graph/repairs.py."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.errors import EditDeclined
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome
from codur.graph.repairs import next_search
from codur.graph.state import AgentState
from codur.scope import ScopeError
from codur.session import Session


@traced("repair")
def repair(state: AgentState, runtime: Runtime[Session]) -> Command[Literal["verify", "review"]]:
    from codur.repair.review import needs_review, review  # only runs that fail a check need it
    from codur.repair.search import search
    from codur.repair.searched import after

    session = runtime.context
    failing = state["verification"]
    config = session.config
    key, budget, depth = next_search(state, session)
    searches = dict(state.get("repair_searches", {}))
    before = searches.get(key)
    allows = session.scope.allows_lines if session.scope else None
    skip = before["tried"] if before is not None else ()
    ctx = session.tool_context()
    result = search(
        failing.plan, failing, ctx, config.repair, config.verify, allows, budget, skip, depth
    )
    tried_ids = list(result.tried_ids)
    searches[key] = after(before, budget, result.duration_s, tried_ids, result.done, result.cut)
    tried = {"repair_searches": searches}
    session.bus.emit(
        "repair.end",
        reason=result.reason,
        tried=result.tried,
        candidates=result.candidates,
        duration_s=result.duration_s,
        change=result.candidate.description if result.candidate else "",
        diff=result.diff,
    )
    none = Command(update={**tried, "outcome": Outcome("no_repair")}, goto="review")
    if result.candidate is None:
        return none
    reviews = list(state.get("repair_reviews", []))
    doubt = ""
    if config.repair.review and needs_review(result):
        judged = review(result, failing, session, state["task"])
        fields = judged.event(result.candidate.description)
        session.bus.emit("repair.review", **fields)
        reviews.append({k: fields[k] for k in ("change", "verdict", "by")})
        if judged.verdict == "overruled":
            outcome = Outcome(
                "no_repair", notes=(f"the repair search's fix was rejected: {judged.reason}",)
            )
            return Command(
                update={**tried, "outcome": outcome, "repair_reviews": reviews},
                goto="review",
            )
        doubt = judged.reason if judged.verdict == "unconfirmed" else ""
    snapshot = session.snapshot
    uncovered = [why for p in result.sources if snapshot and (why := snapshot.uncovered(p))]
    kept_out = [f"the repair search's fix was refused: {why}" for why in uncovered]
    written = []
    for path, text in result.sources.items() if not kept_out else ():  # whole or not at all
        try:
            session.changes.write(path, text, by="repair")  # the scope allowed it: see `allows`
        except EditDeclined:  # suggest mode, and the user said no (the gate's event says so)
            kept_out.append(f"the repair search's fix of {path} was declined")
            continue
        except ScopeError as exc:  # stricter than `allows`: the whole-file check, the snapshot
            kept_out.append(f"the repair search's fix was refused: {exc}")
            continue
        written.append(path)
    if not written:
        return Command(
            update={**tried, "outcome": Outcome("no_repair", notes=tuple(kept_out))}, goto="review"
        )
    outcome = Outcome(
        "repaired",
        reply=f"repair search: {result.candidate.description}",
        files_changed=tuple(written),
    )
    update = {**tried, "outcome": outcome, "repair_reviews": reviews}
    return Command(update={**update, "repair_doubt": doubt}, goto="verify")
