"""Text made safe for a terminal. A model's reply or a program's output could move the
cursor, retitle the window or hide text: escape sequences and control characters other
than newline and tab are removed (`clean`), or escaped where every character must stay
(`json_text`). And long text cut to a number of lines, saying so (`cut_lines`).
"""

from __future__ import annotations

import json
import re
from typing import Any

_CONTROL = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[ -/]*[0-~])?|\x9b[0-?]*[ -/]*[@-~]|\x9d[^\x07\x9c]*[\x07\x9c]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
"""ESC sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-character ones), their 8-bit
forms (CSI 0x9b, OSC 0x9d), and C0/C1 control characters except tab and newline."""


def clean(text: str) -> str:
    """`text` without terminal control sequences (see the module docstring)."""
    return _CONTROL.sub("", text)


_UNESCAPED = re.compile(r"[\x7f-\x9f]")
"""What `json.dumps(ensure_ascii=False)` leaves raw although a terminal acts on it: DEL
and the C1 controls (0x9b starts a CSI sequence; C0 ones it escapes itself)."""


def json_text(value: Any) -> str:
    """`value` as indented JSON that is safe on a terminal and keeps every character:
    non-ASCII text as is, control characters escaped (`\\u009b`), never removed."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return _UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def cut_lines(text: str, max_lines: int | None, what: str, key: str) -> str:
    """`text` cut after `max_lines` lines, with a line saying how many more there were."""
    lines = text.split("\n")
    if max_lines is None or len(lines) <= max_lines:
        return text
    more = f"... {what} cut: {len(lines) - max_lines} more lines ({key})"
    return "\n".join([*lines[:max_lines], more])
