"""The verification agent's typed verdict: what was checked, how it went, and why.

Plain pydantic data (no live objects), so it can sit in the graph state and a checkpoint.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from codur.verify.evidence import Evidence, Location
from codur.verify.plan import VerificationPlan

_VOLATILE = (
    (re.compile(r"\b(at 0x)[0-9a-fA-F]{6,}>"), r"\1...>"),  # where an object sits in memory
    (
        re.compile(
            r"\b((?:passed|failed|errors?|skipped|warnings?|xfailed|xpassed|deselected|"
            r"no tests ran) in )\d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?"
        ),
        r"\1...s",
    ),
)
"""What differs between two runs of the same failing check: object addresses in reprs
(`<function f at 0x7efc7244fb00>`; other hex, which a program may print on purpose,
stays) and the timing of pytest's summary (`1 failed, 2 warnings in 65.43s (0:01:05)`)."""


def steady(text: str) -> str:
    """`text` without what differs from run to run of the same check: the same failure
    reads the same to the model (same prompt, same cached prefix, a reproducible run) and
    to the stuck detection."""
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


Strategy = Literal["output", "tests", "static", "hybrid", "none"]
"""output: run an entry point, compare with its expected output; tests: pytest; static:
syntax, imports, linter; hybrid: several of output/tests; none: nothing to check."""


class VerificationResult(BaseModel):
    """What the review node decides on."""

    passed: bool
    strategy: Strategy
    evidence: list[Evidence] = Field(default_factory=list)
    reasoning: str = ""
    """Why this strategy: which entry point, expected file or tests were found."""
    suggestions: list[str] = Field(default_factory=list)
    """Where to look next, from the evidence (traceback frames, first wrong line)."""
    plan: VerificationPlan

    @property
    def rests_on(self) -> str:
        """The checks the verdict rests on, as one line."""
        return "; ".join(e.command for e in self.evidence)

    @property
    def failed(self) -> list[Evidence]:
        return [e for e in self.evidence if not e.passed]

    @property
    def fingerprint(self) -> str:
        return steady("\n".join(e.fingerprint for e in self.failed))

    @property
    def feedback(self) -> str:
        """The message for the coding agent: every failed check, then where to look."""
        parts = [e.feedback for e in self.failed if e.feedback]
        if self.suggestions:
            parts.append("Where to look:\n" + "\n".join(f"- {s}" for s in self.suggestions))
        return steady("\n\n".join(parts))

    @property
    def locations(self) -> list[Location]:
        return [loc for e in self.failed for loc in e.locations]

    @property
    def exceptions(self) -> list[str]:
        return list(dict.fromkeys(x for e in self.failed for x in e.exceptions))

    @property
    def duration_s(self) -> float:
        return sum(e.duration_s for e in self.evidence)
