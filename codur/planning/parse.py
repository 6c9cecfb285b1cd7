"""Robust JSON extraction from model replies: bare, fenced, or buried in prose."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCED = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text`, or None.

    Tries the whole text, then fenced blocks, then every `{` in turn with a raw decode, so
    leading or trailing prose ("Here is my plan: {...} Hope this helps") does not matter.
    """
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCED.finditer(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None
