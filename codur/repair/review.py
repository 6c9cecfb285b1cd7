"""Review of a repair that only changes constants: a lucky mutation is weak evidence.

`balance = 0` -> `balance = 1` can pass every assert of a test whose inputs all start
with a deposit of 1 and still be wrong for `[-2]`. A fix whose every edit comes from a
`WEAK` operator (an int literal one further, True <-> False: a constant or an initial
value) is reviewed before the run may end `verified` (docs/verification.md):

1. The differential check (`codur.repair.differential`) runs the original and the
   repaired code on the tests' own calls and on calls near them. When at least one
   nearby call was compared and none of them behaves differently, the tests pin
   everything the fix changes: it is confirmed.
2. Otherwise the model, when one may be called, judges the change with the calls that
   behave differently in front of it: CONFIRM or REJECT. A rejected fix is not applied
   (the search is overruled); the model's own attempt follows.
3. With no model, the fix is applied but not confirmed: the run ends `unverified`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from codur.errors import ModelError, ModelUnreachable
from codur.repair.differential import Differential, differential
from codur.repair.search import RepairResult

if TYPE_CHECKING:
    from codur.session import Session
    from codur.verify.result import VerificationResult

WEAK = frozenset({"constant"})
"""Mutation operators (codur/repair/operators.py) whose edits only change a constant."""
SHOWN_DIFFERENCES = 8
"""Calls that behave differently shown to the model (and in the log)."""
MAX_FILE_CHARS = 6000

Verdict = Literal["confirmed", "overruled", "unconfirmed"]


@dataclass(frozen=True)
class RepairReview:
    verdict: Verdict
    """confirmed: the fix counts like any other; overruled: it is not applied;
    unconfirmed: applied, but the run cannot end verified on it."""
    by: Literal["differential", "model", "none"]
    reason: str
    """One line: why."""
    differential: Differential = field(default_factory=Differential)

    def event(self, change: str) -> dict:
        """The `repair.review` event's fields."""
        return {
            "change": change,
            "verdict": self.verdict,
            "by": self.by,
            "reason": self.reason,
            "compared": self.differential.compared,
            "tests_calls": self.differential.tests_calls,
            "differences": [d.line for d in self.differential.differences[:SHOWN_DIFFERENCES]],
        }


def needs_review(result: RepairResult) -> bool:
    """The fix's every edit only changes a constant."""
    edits = result.candidate.edits if result.candidate else ()
    return bool(edits) and all(e.operator in WEAK for e in edits)


def review(
    result: RepairResult, failing: VerificationResult, session: Session, task: str
) -> RepairReview:
    """The review of a constant-only fix (see the module's docstring)."""
    originals = {p: session.ws.read_text(p) for p in result.sources}
    cfg, vcfg = session.config.repair, session.config.verify
    confined = session.sandbox.confiner is not None  # else no made-up arguments
    ctx = session.tool_context()
    found = differential(
        failing.plan, ctx, originals, result.sources, cfg, vcfg.timeout_s, nearby=confined
    )
    if found.pins_everything:
        why = f"the differential check: {found.line}; the tests pin every change"
        return RepairReview("confirmed", "differential", why, found)
    if not session.model_allowed:
        what = found.line if found.compared else "no call could be compared"
        if not found.nearby:
            what += "; programs are not confined, so no nearby inputs"
        elif not found.nearby_compared:
            what += "; no call near the tests' could be compared"
        why = (
            "it only changes a constant, the differential check does not confirm it "
            f"({what}) and no model reviewed it"
        )
        return RepairReview("unconfirmed", "none", why, found)
    try:
        confirmed, said = _ask(session, task, result, originals, found)
    except (ModelUnreachable, ModelError) as exc:
        why = f"it only changes a constant and the model could not review it: {exc}"
        return RepairReview("unconfirmed", "none", why, found)
    verdict: Verdict = "confirmed" if confirmed else "overruled"
    return RepairReview(verdict, "model", said, found)


def _ask(
    session: Session,
    task: str,
    result: RepairResult,
    originals: dict[str, str],
    found: Differential,
) -> tuple[bool, str]:
    """(the model confirms the fix, its reason in a line)."""
    from langchain_core.messages import HumanMessage

    shown = found.differences[:SHOWN_DIFFERENCES]
    differences = "\n".join(f"- {d.line}" for d in shown) or "(none could be run)"
    files = "\n\n".join(
        f"{path}\n```python\n{text[:MAX_FILE_CHARS].rstrip()}\n```"
        for path, text in originals.items()
    )
    prompt = session.prompts.render(
        "repair_review", differences=differences, diff=result.diff, files=files, task=task
    )
    client = session.client()
    reply = str(client.invoke([HumanMessage(prompt)], **client.sampling(0)).content)
    return verdict_of(reply)


_ANSWER = re.compile(r"\b(CONFIRM|REJECT)\b")


def verdict_of(reply: str) -> tuple[bool, str]:
    """The reply's verdict (its first CONFIRM or REJECT; neither: not confirmed) and its
    reason in a line."""
    match = _ANSWER.search(reply)
    line = " ".join(reply.split())[:300] or "(an empty reply)"
    if match is None:
        return False, f"the model's reply holds no CONFIRM or REJECT: {line}"
    return match.group(1) == "CONFIRM", f"the model: {line}"
