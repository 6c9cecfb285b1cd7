"""Crosscheck: a change that only the docstrings' examples checked is compared with other
replies to the task as it began (codur/agents/crosscheck.py). The reply that behaves most
like the others is written when it is not the change itself (verified again on the real
files next); otherwise the files stay and review ends the run. If the reply written fails
on the real files (it passed in a scratch copy), review comes back here and the change it
replaced is put back (verified again next)."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.crosscheck import cross_check
from codur.agents.registry import resolve
from codur.errors import EditDeclined, WorkspaceError
from codur.graph.attempts import fresh_request
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome
from codur.graph.state import AgentState
from codur.scope import ScopeError
from codur.session import Session

NOTHING_AFRESH = "no cross-check: the files as the run found them are not known"


@traced("crosscheck")
def crosscheck(
    state: AgentState, runtime: Runtime[Session]
) -> Command[Literal["verify", "review"]]:
    from codur.agents.proposal import write

    session = runtime.context
    outcome = state.get("outcome")
    if outcome is not None and outcome.kind == "crosschecked" and state.get("crosscheck_kept"):
        return put_back(state, session)
    fresh = fresh_request(state, session)
    if fresh is None:
        return Command(update={"crosscheck": NOTHING_AFRESH}, goto="review")
    request = replace(fresh, attempts=(), seen=frozenset())  # an independent draw
    agent = resolve(state["agent"], session.config).build()
    try:
        result = cross_check(agent, request, state["verification"], session)  # type: ignore[arg-type]
    except (OSError, WorkspaceError) as exc:  # no scratch copy or program: the change stays
        return Command(update={"crosscheck": f"no cross-check: {exc}"}, goto="review")
    session.bus.emit(
        "crosscheck.end",
        probes=result.probes,
        candidates=len(result.candidates),
        passed=len(result.behaviours) - 1 if result.behaviours else 0,
        scores=result.scores,
        chosen=result.chosen.index if result.chosen else None,
        duration_s=result.duration_s,
        line=result.line,
    )
    update: dict = {"crosscheck": result.line}
    if result.chosen is None:
        return Command(update=update, goto="review")
    proposal = result.chosen.proposal
    update["crosscheck_kept"] = {path: session.text_of(path) for path in proposal.sources}
    written, declined = write(proposal, session)
    if not written:  # the files as they are passed the check: they stay
        why = "; ".join(declined) or "nothing written"
        line = f"{result.line}, but not written: {why}"
        return Command(update={"crosscheck": line, "crosscheck_kept": {}}, goto="review")
    outcome = Outcome(
        "crosschecked",
        agent=state["agent"],
        reply=proposal.reply,
        files_changed=tuple(written),
        notes=(*proposal.notes, *declined),
        digest=proposal.digest,
    )
    return Command(update={**update, "outcome": outcome}, goto="verify")


def put_back(state: AgentState, session: Session) -> Command[Literal["verify", "review"]]:
    """Write again what the cross-check's reply replaced (a file it made is removed)."""
    kept = state["crosscheck_kept"]
    verdict = state.get("verification")
    why = verdict.feedback.splitlines()[0] if verdict is not None and verdict.feedback else ""
    written = []
    for path, text in kept.items():
        try:
            if text is None:
                target = session.ws.resolve(path)
                session.changes.prepare([target], None, what=f"delete {path}", by="crosscheck")
                try:
                    target.unlink(missing_ok=True)
                finally:
                    session.changes.made()
            else:
                session.changes.write(path, text, by="crosscheck")
        except (EditDeclined, ScopeError) as exc:
            line = f"{state['crosscheck']}; its reply failed on the real files, not undone: {exc}"
            return Command(update={"crosscheck": line, "crosscheck_kept": {}}, goto="review")
        written.append(path)
    line = (
        f"{state['crosscheck']}; but that reply failed on the real files ({why or 'its check'}), "
        "so the change it replaced was put back"
    )
    outcome = Outcome("put_back", files_changed=tuple(written))
    update = {"crosscheck": line, "crosscheck_kept": {}, "outcome": outcome}
    return Command(update=update, goto="verify")
