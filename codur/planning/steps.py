"""A step plan read from a model's reply (plan_verify mode's planner and replan): a short
numbered or bulleted list, one step a line."""

from __future__ import annotations

import re

_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step\s+\d+\s*[:.)-])\s+(.+?)\s*$", re.IGNORECASE)
"""`1. step`, `2) step`, `- step`, `* step`, `Step 3: step`."""


def parse_steps(text: str, max_steps: int) -> list[str]:
    """The listed steps of `text`, at most `max_steps` (markdown emphasis removed); with no
    list in it, its non-empty lines (a plan written as sentences); empty if none."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("```")]
    listed = [m.group(1) for line in lines if (m := _ITEM.match(line))]
    steps = listed or [line.strip() for line in lines if not line.rstrip().endswith(":")]
    cleaned = [" ".join(s.replace("**", "").replace("`", "").split()) for s in steps]
    return [s for s in cleaned if s][:max_steps]
