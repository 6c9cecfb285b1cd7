"""What a run's final state says about how it was judged, for its RunResult and `run.end`:
the `check` line (what the verdict rests on), how strong its evidence is, and plan_verify
mode's fields (the plan, its iteration, the todo list, the model verifier's verdict)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from codur.graph.decision import BEHAVIOURAL
from codur.graph.state import AgentState
from codur.verify.strength import PASSED, Strength, strength


def check_line(state: AgentState) -> str:
    """The checks that ran on the files as the run left them and, in plan_verify mode,
    the model verifier's verdict on the last plan's work ("model verifier: VERIFIED —
    reasons"): after a behavioural check, before static ones (then it is the judgement
    the run rests on)."""
    verification = state.get("verification")
    rests = verification.rests_on if verification is not None else ""
    judged = state.get("verifier_verdict")
    if judged is None or judged.plan_iteration != state.get("plan_iteration", 0):
        return rests
    behavioural = verification is not None and verification.strategy in BEHAVIOURAL
    parts = [rests, judged.line()] if behavioural else [judged.line(), rests]
    return "; ".join(p for p in parts if p)


def evidence_of(state: AgentState, status: str) -> Strength | None:
    """How strong a passing run's evidence is: the same function of the same verdict
    review decided the status by (None: the run did not pass, or its checks recorded no
    basis, as in a checkpoint of an older Codur)."""
    verification = state.get("verification")
    if status not in PASSED or verification is None:
        return None
    return strength(verification.evidence)


def plan_fields(state: AgentState) -> dict[str, Any]:
    """RunResult's plan_verify fields (empty values outside that mode)."""
    judged = state.get("verifier_verdict")
    return {
        "plan": list(state.get("plan", [])),
        "plan_iteration": state.get("plan_iteration", 0),
        "todos": [asdict(item) for item in state.get("todos", [])],
        "verifier_verdict": judged.verdict if judged is not None else "",
        "verifier_reasons": list(judged.reasons) if judged is not None else [],
    }
