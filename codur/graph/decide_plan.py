"""Review's decision table in plan mode (planning.mode plan_verify, or auto when nothing
checks behaviour: plan, work, have the model verify, replan), for the agent's
completion; a pure function of the `Facts` like the check-driven table (decide.py).
Rows, first match wins:

| facts                                              | decision                           |
| -------------------------------------------------- | ---------------------------------- |
| a check fails (or expected output or tests never   |                                    |
|   ran), plans left                                 | replan (the failure as reasons)    |
| a check fails                                      | end unverified                     |
| not judged by the model verifier yet               | verifier                           |
| NOT_VERIFIED, plans left                           | replan (the verifier's reasons)    |
| NOT_VERIFIED                                       | end unverified (its reasons)       |
| VERIFIED, a behavioural check passed               | end passed                         |
| VERIFIED, files changed, no check ran              | end unverified (the model's word only) |
| VERIFIED, nothing changed (an answer)              | end done (model verifier: VERIFIED) |

"Completed" is the agent's attempt_completion (or the applied reply of an agent without
tools); a check that ran (static ones included) outranks the model verifier, which is
asked only when no check fails. `verified` and `checked` always mean a behavioural check
passed: the model's VERIFIED alone ends `done` (exit 0), its `check` naming the model
verifier (docs/verification.md).
"""

from __future__ import annotations

from codur.graph.decision import Decision, Facts, PlanFacts, behavioural, end
from codur.verify.strength import status_of


def completed(f: Facts, plan: PlanFacts) -> Decision:
    """The agent's completion of `plan`, judged by the checks first, then by the model."""
    left = plan.iteration < plan.max_iterations
    unmet = f.oracle and not behavioural(f)  # expected output or tests that never ran
    if (f.strategy not in (None, "none") and not f.passed) or unmet:
        why = plan.check_failure or f.checks or "the expected output or tests were never run"
        if left:
            return Decision("replan", record="completed", reasons=(why,))
        message = f"the check still fails after {plan.iteration} plan(s): {why}"
        return end("unverified", message, "completed", answer=True)
    if plan.judged is None:
        return Decision("verifier")
    line = plan.judged.line()
    if not plan.judged.verified:
        if left:
            return Decision("replan", record="completed", reasons=plan.judged.reasons)
        return end("unverified", line, "completed", answer=True)
    if behavioural(f):
        return end(status_of(f.evidence), f.checks, "completed", answer=True)
    if f.run_changes:  # changed code that no check ran on: the model's word is no verdict
        message = f"{line}; no check ran on the changed code ({', '.join(f.run_changes)})"
        return end("unverified", message, "completed", answer=True)
    return end("done", line, "completed", answer=True)
