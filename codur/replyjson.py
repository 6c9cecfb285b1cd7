"""The one reader of JSON in model replies (plans, verdicts, decisions, tool calls written
as text): bare, fenced, buried in prose, or slightly broken."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from json_repair import repair_json

_FENCED = re.compile(r"```(?:json|JSON|tool|tool_call)?\s*\n(.*?)```", re.DOTALL)
_OPENING = re.compile(r"[\[{]")


def json_values(text: str) -> Iterator[Any]:
    """Each JSON value in `text`, the surest first: the whole text, each fenced block, the
    value starting at each `{` or `[` (so prose around it does not matter), then the
    fenced blocks and the text as json-repair mends them (a trailing comma, single quotes,
    a reply cut short). Callers take the first value of the shape they want."""
    blocks = [m.group(1).strip() for m in _FENCED.finditer(text)]
    for candidate in (text.strip(), *blocks):
        try:
            yield json.loads(candidate)
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for match in _OPENING.finditer(text):
        try:
            yield decoder.raw_decode(text, match.start())[0]
        except json.JSONDecodeError:
            continue
    # The scan above stays ours: langchain-core's parse_json_markdown reads only a whole
    # reply or its first fence, and json-repair alone would read prose as values before
    # a valid object later on. json-repair mends what small models break, once nothing
    # valid was found; only text with a bracket is worth mending.
    for candidate in (*blocks, text):
        if _OPENING.search(candidate):
            mended = repair_json(candidate, return_objects=True)
            if isinstance(mended, (dict, list)) and mended:
                yield mended


def json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (see `json_values`), or None."""
    return next((v for v in json_values(text) if isinstance(v, dict)), None)
