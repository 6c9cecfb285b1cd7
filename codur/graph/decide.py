"""Review's decision table: a pure function of the facts of one round (the table for an
exception a node raised is `on_error`).

`decide(facts)` reads no state, config or files: the review node gathers the `Facts`
(from the state, the verdict and the config) and applies the `Decision` it returns
(attempt records, counters, messages). Rows, first match wins:

| facts                                              | decision                           |
| -------------------------------------------------- | ---------------------------------- |
| no attempt yet, failing, repairable, repair first  | repair                             |
| no attempt yet, no model, check passes (behaviour) | end passed                         |
| no attempt yet, no model                           | end unverified (no model)          |
| no attempt yet, mode plan_verify, or mode auto,    |                                    |
|   nothing checks behaviour and no expected output  |                                    |
|   or tests wait for a program yet                  | planner (plan mode)                |
| no attempt yet                                     | execute (the agent's first try)    |
| the agent failed, a fallback agent left            | delegate (handoff; record          |
|                                                    |   "agent_failed")                  |
| the agent failed, and its changes do not pass      | end failed                         |
| the agent's loop ended without a completion        | end limit                          |
| plan mode: the agent's completion                  | plan mode's table (decide_plan.py) |
| reply cut at the token limit                       | again (record "cut")               |
| duplicate of a rejected reply                      | end stuck                          |
| duplicate, MAX_REPEATS reached                     | end stuck                          |
| duplicate                                          | again (record "duplicate")         |
| rejected                                           | again (record "rejected")          |
| nothing checks the behaviour                       | end done / unverified (changed?)   |
| passed, only static checks                         | end done / unverified (changed?)   |
| passed, the repair's constant-only fix unconfirmed | end unverified                     |
| passed, the model's test passed before the change  | end unverified                     |
| passed, only docstring examples checked it, a      |                                    |
|   model attempt (or a repair of one) changed files,|                                    |
|   not cross-checked, crosscheck on                 | crosscheck (compare other replies) |
| passed                                             | end passed (and the cross-check)   |
| failing, the cross-check's reply, what it replaced |                                    |
|   is known                                         | crosscheck (which puts that back)  |
| failing, repairable                                | repair                             |
| failing, changed files, the same failure as before | end stuck                          |
| failing, sampled, no candidate could be applied    | end stuck                          |
| failing, sampled, no new failure                   | end stuck                          |
| failing                                            | again (the failure as feedback)    |

"end passed" is `verified` when the project's own check passed (its expected output, its
tests that reach the code) and `checked` when only a check derived from the task, the
docstrings or the model did: `Facts.evidence`, mapped by codur/verify/strength.py's
`status_of` (the one place that decides it).

"again" is itself a small table: no model -> end unverified; the iteration limit ->
end unverified; sampling on, not in plan mode, and a model attempt failed -> sample; else
the retry, straight to where it goes: the agent again (delegate), or planning again
(llm_plan) with planning.replan_on_retry.

Destinations are node names (codur/graph/node_names.py): review hands `Decision.goto`
to LangGraph as it is.
"""

from __future__ import annotations

from codur.graph.decide_plan import completed
from codur.graph.decision import MAX_REPEATS, Decision, Facts, Goto, Record, behavioural, end
from codur.verify.strength import status_of


def decide(f: Facts) -> Decision:
    if f.kind is None or (f.kind == "no_repair" and f.first):
        return _before_first_attempt(f)
    if f.kind == "agent_failed" and not (f.passed and f.changed_files):
        if f.fallback:
            return Decision("delegate", record="agent_failed", handoff=True)
        return end("failed", f.agent_error, "agent_failed")
    if f.kind == "no_completion":
        return end("limit", "the agent did not call attempt_completion (planning.max_agent_rounds)")
    if f.kind == "completed" and f.plan is not None:
        return completed(f, f.plan)
    if f.kind == "cut":
        return again(f, "cut")
    if f.kind == "duplicate":
        if f.repeats_rejected:
            return end("stuck", "the model repeated a reply that was rejected", "duplicate")
        if f.repeats >= MAX_REPEATS:
            return end(
                "stuck", f"the model repeated earlier replies {f.repeats} times", "duplicate"
            )
        return again(f, "duplicate")
    if f.kind == "rejected":
        return again(f, "rejected", feedback=True)
    record: Record | None = "applied" if f.kind != "no_repair" else None
    if f.strategy in (None, "none"):
        why = "nothing in the folder or the task says what the program should do"
        return _unchecked(f, why, None)
    if f.passed:
        if f.strategy == "static":
            return _unchecked(f, f"only static checks ran ({f.checks})", record)
        if f.kind == "repaired" and f.repair_doubt:
            return end(
                "unverified", f"the repair search's fix passes, but {f.repair_doubt}", record
            )
        if f.unshown_fix:
            why = "the test the model wrote passed before the change too, so it does not show a fix"
            return end("unverified", f"no check: {why}", record)
        if _cross_check(f):
            return Decision("crosscheck", record=record)
        checks = "; ".join(x for x in (f.checks, f.crosschecked) if x)
        kept = f.crosschecked and f.kind != "crosschecked"  # its pass was recorded before
        return end(status_of(f.evidence), checks, None if kept else record)
    if f.kind == "crosschecked" and f.put_back:  # it passed in a scratch copy only
        return Decision("crosscheck", record=record)
    if f.repairable:
        return Decision("repair", record=record)
    if f.changed_files and f.seen_failure:
        return end("stuck", "the same failure came back twice", record)
    if f.kind == "no_sample" and not f.sampled_ran:
        return end("stuck", "no sampled reply could be applied and checked", record)
    if f.kind in ("sampled", "no_sample") and not f.new_failures:
        return end("stuck", "every sampled candidate failed in a way seen before", record)
    return again(f, record, feedback=True)


def _cross_check(f: Facts) -> bool:
    """Only the docstrings' examples checked a model's change (or the repair search's
    edit of one: tuned to pass the examples, it fits them no better), and no cross-check
    ran."""
    repaired = f.kind == "repaired" and f.model_changed
    changed = (f.kind in ("edited", "sampled") or repaired) and f.changed_files
    return f.examples_only and f.crosscheck and f.model and changed and not f.crosschecked


def again(f: Facts, record: Record | None, feedback: bool = False) -> Decision:
    """Another attempt, unless no model may run or the iteration limit is reached."""
    if not f.model:
        return _no_model(f, record)
    if f.iterations + 1 >= f.max_iterations:
        return end("unverified", f"no verification passed in {f.max_iterations} iterations", record)
    sample = f.sampling and f.model_failed_before and f.plan is None
    goto: Goto = "sample" if sample else "llm_plan" if f.replan_on_retry else "delegate"
    return Decision(goto, record=record, feedback=feedback)


def _before_first_attempt(f: Facts) -> Decision:
    """The check before any agent ran: a repair if it fails, else the agent."""
    if not f.passed and f.repairable and (f.repair_first or not f.model):
        return Decision("repair")
    if not f.model:
        if f.passed and f.strategy not in ("static", "none", None):
            return end(status_of(f.evidence), "the check already passes; nothing was changed")
        return _no_model(f, None)
    if f.mode == "plan_verify" or (f.mode == "auto" and not behavioural(f) and not f.oracle):
        return Decision("planner")
    return Decision("execute")


def _no_model(f: Facts, record: Record | None) -> Decision:
    found = "the repair search found no fix" if f.repairs_tried else "no repair"
    found = f.repair_kept_out or found
    return end("unverified", f"no model (--no-model): {found}", record)


def _unchecked(f: Facts, why: str, record: Record | None) -> Decision:
    """No check of the behaviour: an answer that changed nothing is done; changed code
    that nothing could check is not verified (exit 1), whatever the model claims."""
    if not f.run_changes:
        return end("done", "nothing was changed", record, answer=True)
    message = f"no check: {why}; changed {', '.join(f.run_changes)}"
    return end("unverified", message, record, answer=True)
