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
|   or tests wait for a program yet                  | plan (the step planner)            |
| no attempt yet                                     | execute (the agent's first try)    |
| the agent failed, a fallback agent left            | fallback (record "agent_failed")   |
| the agent failed, and its changes do not pass      | end failed                         |
| plan mode: the loop ended without a completion     | end limit                          |
| completed, a check fails (or expected output or    |                                    |
|   tests never ran), plans left                     | replan (the failure as reasons)    |
| completed, a check fails                           | end unverified                     |
| completed, not judged by the model verifier yet    | verifier                           |
| completed, NOT_VERIFIED, plans left                | replan (the verifier's reasons)    |
| completed, NOT_VERIFIED                            | end unverified (its reasons)       |
| completed, VERIFIED, a behavioural check passed    | end passed                         |
| completed, VERIFIED, files changed, no check ran   | end unverified (the model's word only) |
| completed, VERIFIED, nothing changed (an answer)    | end done (model verifier: VERIFIED) |
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
| failing, sampled, no new failure                   | end stuck                          |
| failing                                            | again (the failure as feedback)    |

"end passed" is `verified` when the project's own check passed (its expected output, its
tests that reach the code) and `checked` when only a check derived from the task, the
docstrings or the model did: `Facts.evidence`, mapped by codur/verify/strength.py's
`status_of` (the one place that decides it).

"again" is itself a small table: no model -> end unverified; the iteration limit ->
end unverified; sampling on, not in plan mode, and a model attempt failed -> sample; else
retry.

Plan mode (plan_verify: plan, work, have the model verify, replan): "completed" is the
agent's attempt_completion (or the applied reply of an agent without tools); a check that
ran (static ones included) outranks the model verifier, which is asked only when no check
fails. `verified` and `checked` always mean a behavioural check passed: the model's
VERIFIED alone ends `done` (exit 0), its `check` naming the model verifier
(docs/verification.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codur.graph.outcome import OutcomeKind
from codur.graph.state import Status
from codur.planning.verdict import VerifierVerdict
from codur.verify.strength import Level, status_of

MAX_REPEATS = 2
"""Replies identical to an earlier one (each dropped) before the run is stuck."""

Goto = Literal[
    "execute",
    "repair",
    "sample",
    "crosscheck",
    "retry",
    "fallback",
    "end",
    "plan",
    "verifier",
    "replan",
]
Record = Literal["cut", "duplicate", "rejected", "applied", "agent_failed", "completed"]
Mode = Literal["auto", "check", "plan_verify"]
BEHAVIOURAL = ("output", "tests", "hybrid")
"""Strategies that check what the program does (static checks and none do not)."""


@dataclass(frozen=True)
class Facts:
    """What review knows about the round that just ended."""

    kind: OutcomeKind | None
    """The last attempt's outcome; None: no attempt yet (the check before the first)."""
    first: bool = False
    """No attempt has been recorded yet (a repair that found nothing is not one)."""
    strategy: str | None = None
    """The verdict's strategy (none, static, output, tests, hybrid); None: no verdict."""
    passed: bool = False
    evidence: Level | None = None
    """How strong the passing checks' evidence is (codur/verify/strength.py): project
    (verified) or derived (checked); None: no behavioural check passed."""
    repairable: bool = False
    """Repair enabled, a program or tests fail, and the search has not seen this failure."""
    repair_first: bool = False
    """repair.before_first_attempt: search a repair before the first model call."""
    model: bool = True
    """A model may be called (not --no-model)."""
    changed_files: bool = False
    """The last attempt changed files."""
    run_changes: tuple[str, ...] = ()
    """The files the run changed (any attempt, any tool)."""
    checks: str = ""
    """What the verdict rests on: the checks that ran, one summary each."""
    repairs_tried: bool = False
    """The repair search has run in this run."""
    seen_failure: bool = False
    """The current failure was seen in an earlier round."""
    new_failures: bool = True
    """The round's failures (a sampling round: each candidate's) include one not seen."""
    repeats_rejected: bool = False
    """A duplicate reply repeats one that was rejected."""
    repeats: int = 0
    """Duplicate replies so far, this one included."""
    unshown_fix: bool = False
    """The only behavioural check is a model-written test that passed before the change."""
    iterations: int = 0
    """Rounds done before this one."""
    max_iterations: int = 10
    sampling: bool = False
    """sampling.candidates > 0."""
    model_failed_before: bool = False
    """A model attempt (this one included) has failed: sampling may start."""
    model_changed: bool = False
    """An earlier model attempt changed files (a repair after it edited the model's code)."""
    fallback: bool = False
    """An agent of agents.preferences.fallback_order that has not failed is left."""
    agent_error: str = ""
    """How the agent failed (outcome agent_failed)."""
    mode: Mode = "check"
    """planning.mode: check, plan_verify, or auto (plan_verify when nothing checks
    behaviour)."""
    plan_iteration: int = 0
    """The plan the agent works on (plan mode); 0: the run is not in plan mode."""
    max_plan_iterations: int = 3
    judged: VerifierVerdict | None = None
    """The model verifier's judgement of this completion (its verdict and reasons);
    None: not judged yet."""
    check_failure: str = ""
    """How the check fails (its feedback): what a replan is told."""
    oracle: bool = False
    """The folder holds expected output or tests (the edit scope's `judges`), even where
    they cannot run yet (expected.txt beside no program): auto keeps the check-driven
    loop."""
    examples_only: bool = False
    """The check that ran is only the docstrings' examples (a few calls)."""
    crosscheck: bool = False
    """crosscheck.candidates > 0 and the agent can sample."""
    crosschecked: str = ""
    put_back: bool = False
    """The files the cross-check's written reply replaced are known (crosscheck_kept)."""
    """How the run's cross-check went; empty: none ran."""
    repair_doubt: str = ""
    """Why the repair search's fix that was applied cannot end the run verified (a
    constant-only change no review confirmed: codur/repair/review.py); empty: none."""


@dataclass(frozen=True)
class Decision:
    goto: Goto
    status: Status | None = None
    """For goto end: how the run ends."""
    message: str = ""
    record: Record | None = None
    """The attempt record review adds for this round, if any."""
    feedback: bool = False
    """Another attempt, with the failure or the rejection kept in the conversation."""
    answer: bool = False
    """The last reply is the run's answer (shown in the summary and in --json)."""
    reasons: tuple[str, ...] = ()
    """For goto replan: why the plan's work was not accepted."""


def end(status: Status, message: str, record: Record | None = None) -> Decision:
    return Decision("end", status, message, record)


def decide(f: Facts) -> Decision:
    if f.kind is None or (f.kind == "no_repair" and f.first):
        return _before_first_attempt(f)
    if f.kind == "agent_failed" and not (f.passed and f.changed_files):
        if f.fallback:
            return Decision("fallback", record="agent_failed")
        return end("failed", f.agent_error, "agent_failed")
    if f.kind in ("completed", "no_completion"):
        return _completed(f)
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
    sample = f.sampling and f.model_failed_before and not f.plan_iteration
    goto: Goto = "sample" if sample else "retry"
    return Decision(goto, record=record, feedback=feedback)


def _before_first_attempt(f: Facts) -> Decision:
    """The check before any agent ran: a repair if it fails, else the agent."""
    if not f.passed and f.repairable and (f.repair_first or not f.model):
        return Decision("repair")
    if not f.model:
        if f.passed and f.strategy not in ("static", "none", None):
            return end(status_of(f.evidence), "the check already passes; nothing was changed")
        return _no_model(f, None)
    if f.mode == "plan_verify" or (f.mode == "auto" and not _behavioural(f) and not f.oracle):
        return Decision("plan")
    return Decision("execute")


def _behavioural(f: Facts) -> bool:
    """A check of what the program does ran (one that can show a fix)."""
    return f.strategy in BEHAVIOURAL and not f.unshown_fix


def _completed(f: Facts) -> Decision:
    """Plan mode: the agent's completion, judged by the checks first, then the model."""
    if f.kind == "no_completion":
        why = "the agent did not call attempt_completion (planning.max_agent_rounds)"
        return end("limit", why)
    left = f.plan_iteration < f.max_plan_iterations
    unmet = f.oracle and not _behavioural(f)  # expected output or tests that never ran
    if (f.strategy not in (None, "none") and not f.passed) or unmet:
        why = f.check_failure or f.checks or "the expected output or tests were never run"
        if left:
            return Decision("replan", record="completed", reasons=(why,))
        message = f"the check still fails after {f.plan_iteration} plan(s): {why}"
        return Decision("end", "unverified", message, "completed", answer=True)
    if f.judged is None:
        return Decision("verifier")
    line = f.judged.line()
    if not f.judged.verified:
        if left:
            return Decision("replan", record="completed", reasons=f.judged.reasons)
        return Decision("end", "unverified", line, "completed", answer=True)
    if _behavioural(f):
        return Decision("end", status_of(f.evidence), f.checks, "completed", answer=True)
    if f.run_changes:  # changed code that no check ran on: the model's word is no verdict
        changed = ", ".join(f.run_changes)
        message = f"{line}; no check ran on the changed code ({changed})"
        return Decision("end", "unverified", message, "completed", answer=True)
    return Decision("end", "done", line, "completed", answer=True)


def _no_model(f: Facts, record: Record | None) -> Decision:
    found = "the repair search found no fix" if f.repairs_tried else "no repair"
    return end("unverified", f"no model (--no-model): {found}", record)


def _unchecked(f: Facts, why: str, record: Record | None) -> Decision:
    """No check of the behaviour: an answer that changed nothing is done; changed code
    that nothing could check is not verified (exit 1), whatever the model claims."""
    if not f.run_changes:
        return Decision("end", "done", "nothing was changed", record, answer=True)
    message = f"no check: {why}; changed {', '.join(f.run_changes)}"
    return Decision("end", "unverified", message, record, answer=True)
