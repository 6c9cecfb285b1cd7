"""Reading the planner's and the refinery's replies, with the seed's fallbacks: a plan
that is not a list of steps becomes one search step; a decision that cannot be read is
CONTINUE while planned steps remain, else FINISH."""

from __future__ import annotations

from typing import Any

from codur.ask.state import Decision
from codur.replyjson import json_object, json_values

FALLBACK_STEP = "Search for relevant code related to the query"


def _steps(value: Any) -> list[Any] | None:
    """`value` as a list of steps: itself, or the list under `steps` or `plan`."""
    if isinstance(value, dict):
        value = value.get("steps") or value.get("plan")
    return value if isinstance(value, list) else None


def parse_plan(text: str, max_steps: int) -> list[str] | None:
    """The research steps in the planner's reply (a JSON array of strings, bare, fenced
    or in prose; or `{"steps": [...]}`), at most `max_steps`; None if there are none."""
    steps = next((s for v in json_values(text) if (s := _steps(v)) is not None), None)
    if steps is None:
        return None
    kept = [s.strip() for s in steps if isinstance(s, str) and s.strip()]
    return kept[:max_steps] or None


def fallback_plan(question: str) -> list[str]:
    """The plan when the planner's reply cannot be read: one step, searching the code for
    the question."""
    return [f"{FALLBACK_STEP}: {question}"]


def parse_decision(text: str) -> tuple[Decision, str] | None:
    """(decision, reason) from the refinery's reply, or None if it says neither."""
    obj = json_object(text)
    if obj is not None:
        decision = str(obj.get("decision", "")).strip().upper()
        if decision in ("CONTINUE", "FINISH"):
            return decision, str(obj.get("reason", "")).strip()  # type: ignore[return-value]
    return None


def fallback_decision(current_step: int, plan_length: int) -> tuple[Decision, str]:
    """When the refinery's reply cannot be read: go on while planned steps remain."""
    if current_step < plan_length:
        return "CONTINUE", "the refinery's reply was not understood; planned steps remain"
    return "FINISH", "the refinery's reply was not understood; every planned step ran"
