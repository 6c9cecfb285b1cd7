"""Review: gather the facts of the round (the outcome, the verdict, the config), let
`codur.graph.decide.decide` choose, and apply its decision: the attempt record, the
counters, the feedback turn, and where the run goes next.

Every model attempt leaves an Attempt record whose one-line summary goes into the next
prompt (beside the current failure, which every prompt carries).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command

from codur.agents.proposal import COPYING
from codur.agents.registry import can_sample
from codur.agents.registry import fallback as next_agent
from codur.eventlines import short
from codur.graph.attempts import attempt, examples_only, failure_line
from codur.graph.decide import decide
from codur.graph.decision import Decision, Facts, Goto, PlanFacts
from codur.graph.node_names import END
from codur.graph.nodes import traced
from codur.graph.outcome import Outcome
from codur.graph.pruning import feedback, prune
from codur.graph.repairs import next_search
from codur.graph.state import AgentState, Attempt
from codur.promptbook import PromptBook
from codur.session import Session
from codur.verify.result import VerificationResult
from codur.verify.strength import Level, strength


@traced("review")
def review(state: AgentState, runtime: Runtime[Session]) -> Command[Goto]:
    session = runtime.context
    decision = decide(facts(state, session))
    return Command(update=apply(decision, state, session), goto=decision.goto)


def _failed_agents(state: AgentState) -> list[str]:
    """The agents that failed in the run, the last attempt's included."""
    outcome = state.get("outcome")
    failed = list(state.get("agents_failed", []))
    if outcome is not None and outcome.kind == "agent_failed" and outcome.agent not in failed:
        failed.append(outcome.agent)
    return failed


def facts(state: AgentState, session: Session) -> Facts:
    """What `decide` needs, read from the state, the verdict and the config."""
    outcome = state.get("outcome")
    verdict = state.get("verification")
    attempts = state.get("attempts", [])
    cfg = session.config
    seen = state.get("error_fingerprints", [])
    digest = outcome.digest if outcome else ""
    earlier = [a for a in attempts if digest and a.get("digest") == digest]
    failures = list(outcome.fingerprints) if outcome and outcome.fingerprints else []
    none_ran = outcome is not None and outcome.kind == "no_sample" and not failures
    if verdict is not None and not failures and not none_ran:
        failures = [verdict.fingerprint]
    model_failed = any(a.get("agent") for a in attempts) or bool(outcome and outcome.agent)
    agent = state.get("agent")
    samples = agent is None or can_sample(agent, cfg)
    return Facts(
        kind=outcome.kind if outcome else None,
        first=not attempts,
        strategy=verdict.strategy if verdict is not None else None,
        passed=verdict is not None and verdict.passed,
        evidence=_level(verdict),
        repairable=verdict is not None and _repairable(verdict, state, session),
        repair_first=cfg.repair.before_first_attempt,
        model=session.model_allowed,
        changed_files=bool(outcome and outcome.files_changed),
        run_changes=tuple(session.snapshot.changed()) if session.snapshot else (),
        checks="; ".join(e.summary for e in verdict.evidence) if verdict is not None else "",
        repairs_tried=bool(state.get("repair_searches")),
        repair_kept_out="; ".join(outcome.notes) if outcome and outcome.kind == "no_repair" else "",
        seen_failure=verdict is not None and verdict.fingerprint in seen,
        new_failures=any(f not in seen for f in failures),
        sampled_ran=not none_ran,
        repeats_rejected=any(a.get("outcome") == "rejected" for a in earlier),
        repeats=sum(a.get("outcome") == "duplicate" for a in attempts) + 1,
        unshown_fix=verdict is not None and _unshown_fix(state, verdict),
        iterations=state.get("iterations", 0),
        max_iterations=cfg.runtime.max_iterations,
        sampling=cfg.sampling.candidates > 0 and samples,
        model_failed_before=model_failed,
        model_changed=any(a.get("agent") and a.get("files_changed") for a in attempts),
        fallback=next_agent(cfg, _failed_agents(state)) is not None,
        agent_error=outcome.error if outcome else "",
        replan_on_retry=cfg.planning.replan_on_retry or not agent,
        mode=cfg.planning.mode,
        plan=_plan(state, session) if state.get("plan_iteration", 0) else None,
        oracle=bool(session.scope is not None and session.scope.judges),
        examples_only=verdict is not None and examples_only(verdict),
        crosscheck=cfg.crosscheck.candidates > 0 and samples,
        crosschecked=state.get("crosscheck", ""),
        put_back=bool(state.get("crosscheck_kept")),
        repair_doubt=state.get("repair_doubt", ""),
    )


def _plan(state: AgentState, session: Session) -> PlanFacts:
    """Plan mode's facts: the plan the agent works on, and the judgements of its work."""
    iteration = state["plan_iteration"]
    verdict = state.get("verification")
    judgement = state.get("verifier_verdict")
    return PlanFacts(
        iteration=iteration,
        max_iterations=session.config.planning.max_plan_iterations,
        judged=judgement if judgement and judgement.plan_iteration == iteration else None,
        check_failure=verdict.feedback if verdict is not None and not verdict.passed else "",
    )


def apply(decision: Decision, state: AgentState, session: Session) -> dict[str, Any]:
    """The state update that carries out `decision`."""
    outcome = state.get("outcome")
    verdict = state.get("verification")
    record = _record(decision, state, outcome, verdict)
    attempts = [*state.get("attempts", []), *([record] if record else [])]
    iterations = state.get("iterations", 0) + 1
    update: dict[str, Any] = {"attempts": attempts}
    if decision.goto == END:
        update.update(status=decision.status, status_message=decision.message)
        if outcome is not None and (outcome.kind != "no_repair" or state.get("attempts")):
            update["iterations"] = iterations  # a round with an attempt in it counts
        if decision.answer and outcome is not None:
            update["final_response"] = outcome.reply
        return update
    if decision.goto in ("execute", "repair", "planner", "verifier", "crosscheck"):
        return update
    if decision.handoff:  # the next agent takes over (delegate resolves it)
        failed = _failed_agents(state)
        successor = next_agent(session.config, failed)
        assert outcome is not None and successor is not None  # decide checked there is one
        session.bus.emit("agent.fallback", agent=outcome.agent, to=successor, error=outcome.error)
        update.update(agents_failed=failed, selected_agent=successor, iterations=iterations)
        return update
    if decision.goto == "replan":
        return {**update, "iterations": iterations, "replan_reasons": list(decision.reasons)}
    text = _feedback_text(session.prompts, outcome, verdict) if decision.feedback else None
    messages: list[Any] = [feedback(text)] if text else []
    messages += prune(
        [*state.get("messages", []), *messages], session.config.planning.keep_feedback_messages
    )
    seen = state.get("error_fingerprints", [])
    failures = list(outcome.fingerprints) if outcome and outcome.fingerprints else []
    if verdict is not None and not failures and outcome is not None and outcome.applied:
        failures = [verdict.fingerprint]
    if outcome is not None and outcome.kind == "no_repair" and verdict is not None:
        failures = [verdict.fingerprint]
    new = [f for f in dict.fromkeys(failures) if f not in seen]
    return {
        **update,
        "iterations": iterations,
        "messages": messages,
        "error_fingerprints": [*seen, *new],
    }


def _feedback_text(
    book: PromptBook, outcome: Outcome | None, verdict: VerificationResult | None
) -> str | None:
    if outcome is not None and outcome.kind == "rejected":
        return book.render("edit_rejected", error=outcome.error)
    return verdict.feedback if verdict is not None else None


def _record(
    decision: Decision,
    state: AgentState,
    outcome: Outcome | None,
    verdict: VerificationResult | None,
) -> Attempt | None:
    if decision.record is None or outcome is None:
        return None
    if decision.record == "cut":
        summary = "the reply was cut off at the length limit; nothing of it was applied"
        if outcome.error == COPYING:
            summary = "the reply began to copy the file as it was shown; it was stopped there"
        return attempt(state, "cut", summary)
    if decision.record == "duplicate":
        return attempt(state, "duplicate", "repeated an earlier reply word for word")
    if decision.record == "rejected":
        return attempt(state, "rejected", f"rejected: {outcome.error.splitlines()[0]}")
    if decision.record == "agent_failed":
        what = outcome.error.splitlines()[0] if outcome.error else "it failed"
        return attempt(state, "agent failed", f"{outcome.agent} failed: {what}")
    if decision.record == "completed":
        return _completed(state, outcome, decision)
    return _applied(state, outcome, verdict)


def _applied(state: AgentState, outcome: Outcome, verdict: VerificationResult | None) -> Attempt:
    """The record of an attempt whose edits were applied and checked."""
    notes = "; ".join(outcome.notes)
    if outcome.kind in ("sampled", "no_sample"):
        tried = "; ".join(outcome.candidates)
        return attempt(state, "sampled", f"sampled fixes that failed: {tried}")
    if verdict is not None and verdict.passed:
        return attempt(state, "passed", "passed")
    if not outcome.files_changed:
        summary = "the reply changed no file" + (f" ({notes})" if notes else "")
        return attempt(state, "no edit", summary)
    failure = failure_line(verdict) if verdict is not None else "no check ran"
    what = f"changed {', '.join(outcome.files_changed)}; the check still failed: {failure}"
    return attempt(state, "failed", what + (f" ({notes})" if notes else ""))


def _completed(state: AgentState, outcome: Outcome, decision: Decision) -> Attempt:
    """The record of a plan's completion (plan mode) and why it was not accepted."""
    said = short(outcome.reply, 160) or "(nothing)"
    line = f"plan {state.get('plan_iteration', 0)}, the agent's answer: {said}"
    if decision.goto == "replan":
        line += f"; not accepted: {short('; '.join(decision.reasons), 300) or 'no reason given'}"
    return attempt(state, "completed", line)


def _level(verdict: VerificationResult | None) -> Level | None:
    """How strong the passing checks' evidence is (None: nothing behavioural passed)."""
    found = strength(verdict.evidence) if verdict is not None and verdict.passed else None
    return found.level if found is not None else None


def _unshown_fix(state: AgentState, verdict: VerificationResult) -> bool:
    """The only behavioural check is a model-written test that already passed on the
    files as the run found them."""
    written = state.get("model_test")
    if written is None or not written.test or written.failed_first is not False:
        return False
    return all(e.check in ("derived", "oracle") for e in verdict.evidence)


def _repairable(verdict: VerificationResult, state: AgentState, session: Session) -> bool:
    """A failure of a program or tests, in code the repair search has something left to
    search in (codur/graph/repairs.py)."""
    return (
        not verdict.passed
        and session.config.repair.enabled
        and verdict.strategy in ("output", "tests", "hybrid")
        and next_search(state, session).budget_s > 0
    )
