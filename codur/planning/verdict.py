"""The model verifier's verdict (plan_verify mode): VERIFIED or NOT_VERIFIED, with reasons,
read strictly from its reply.

The reply is a JSON object `{"verdict": "VERIFIED" | "NOT_VERIFIED", "reasons": [...]}`
(bare, fenced or in prose), or a first line `VERIFIED: reason` /
`NOT_VERIFIED: reason` with more reasons on the lines after. Anything else is
NOT_VERIFIED, its reason saying the reply could not be read: an unreadable judgement
never passes a run. VERIFIED counts only when nothing in the reply says otherwise: the
word in capitals (not "Verified that..." or "verified: false"), and no NOT_VERIFIED, no
second verdict and no question mark after it anywhere in the reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from codur.replyjson import json_object

Verdict = Literal["VERIFIED", "NOT_VERIFIED"]

_LINE = re.compile(r"^\**\s*((?i:NOT[ _-]VERIFIED)|VERIFIED)\b\**\s*[:.\-—]?\s*(.*)$")
_DOUBT = re.compile(r"NOT[ _-]VERIFIED|VERIFIED\s*\?|\bnot\s+verified\b", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")


@dataclass(frozen=True)
class VerifierVerdict:
    """The model verifier's judgement of one completion."""

    verdict: Verdict
    reasons: tuple[str, ...]
    plan_iteration: int
    """The plan whose completion was judged (1: the first plan)."""

    def __post_init__(self) -> None:
        if not isinstance(self.reasons, tuple):  # revived from a checkpoint
            object.__setattr__(self, "reasons", tuple(self.reasons))

    @property
    def verified(self) -> bool:
        return self.verdict == "VERIFIED"

    def line(self) -> str:
        """`model verifier: VERIFIED — reason; reason` (the run's `check`, its message)."""
        reasons = "; ".join(self.reasons)
        return f"model verifier: {self.verdict}" + (f" — {reasons}" if reasons else "")


def _verdict(word: str) -> Verdict | None:
    """NOT_VERIFIED in any spelling; VERIFIED only in capitals (a passing verdict is never
    read into a word that happens to be there)."""
    normal = re.sub(r"[\s-]+", "_", word.strip())
    if normal.upper() == "NOT_VERIFIED":
        return "NOT_VERIFIED"
    return "VERIFIED" if normal == "VERIFIED" else None


def _reasons(value: object) -> list[str]:
    items = value if isinstance(value, list) else [value] if value else []
    return [" ".join(str(r).split()) for r in items if str(r).strip()]


def parse_verdict(text: str, plan_iteration: int) -> VerifierVerdict:
    """The verdict in the verifier's reply `text` (see the module docstring)."""
    found = _read(text, plan_iteration)
    if found.verified and (_DOUBT.search(text) or text.count('"verdict"') > 1):
        return unreadable("it says VERIFIED and also something else", plan_iteration)
    return found


def _read(text: str, plan_iteration: int) -> VerifierVerdict:
    data = json_object(text)
    if data is not None:
        verdict = _verdict(str(data.get("verdict", "")))
        if verdict is None:
            why = f"its verdict {data.get('verdict')!r} is neither VERIFIED nor NOT_VERIFIED"
            return unreadable(why, plan_iteration)
        reasons = _reasons(data.get("reasons", data.get("reason")))
        return VerifierVerdict(verdict, tuple(reasons), plan_iteration)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    match = _LINE.match(lines[0]) if lines else None
    if match is None:
        return unreadable("it holds no JSON verdict and starts with no verdict", plan_iteration)
    verdict = _verdict(match.group(1))
    assert verdict is not None  # the pattern admits only the two words
    more = [_BULLET.sub("", line) for line in lines[1:]]
    reasons = _reasons([match.group(2), *more])
    return VerifierVerdict(verdict, tuple(reasons), plan_iteration)


def unreadable(why: str, plan_iteration: int) -> VerifierVerdict:
    return VerifierVerdict(
        "NOT_VERIFIED", (f"the verifier's reply could not be read: {why}",), plan_iteration
    )
