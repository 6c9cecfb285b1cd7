"""Reading the planner's and the refinery's replies, with the seed's fallbacks: a plan
that is not a list of steps becomes one search step; a decision that cannot be read is
CONTINUE while planned steps remain, else FINISH."""

from __future__ import annotations

import json
import re
from typing import Any

from codur.ask.state import Decision
from codur.planning.parse import extract_json_object

FALLBACK_STEP = "Search for relevant code related to the query"

_FENCED = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)


def _json_array(text: str) -> list[Any] | None:
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCED.finditer(text))]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, list):
            return value
        if isinstance(value, dict) and isinstance(value.get("steps") or value.get("plan"), list):
            return value.get("steps") or value.get("plan")
    for match in re.finditer(r"\[", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, list):
            return value
    obj = extract_json_object(text)
    if obj is not None and isinstance(obj.get("steps") or obj.get("plan"), list):
        return obj.get("steps") or obj.get("plan")
    return None


def parse_plan(text: str, max_steps: int) -> list[str] | None:
    """The research steps in the planner's reply (a JSON array of strings, bare, fenced
    or in prose; or `{"steps": [...]}`), at most `max_steps`; None if there are none."""
    steps = _json_array(text)
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
    obj = extract_json_object(text)
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
