"""Reading plan_verify mode's model replies: a step plan, and the verifier's verdict
(strict: what cannot be read is NOT_VERIFIED, saying so)."""

from __future__ import annotations

import pytest

from codur.planning.steps import parse_steps
from codur.planning.verdict import VerifierVerdict, parse_verdict


@pytest.mark.parametrize(
    ("reply", "steps"),
    [
        ("1. Read main.py\n2. Fix `total`\n3. Run it", ["Read main.py", "Fix total", "Run it"]),
        ("Plan:\n- read it\n* **fix** it\n", ["read it", "fix it"]),
        ("Step 1: read\nStep 2) fix", ["read", "fix"]),
        ("```\n1) read\n```", ["read"]),
        ("Read the file and add a docstring.", ["Read the file and add a docstring."]),
        ("", []),
        ("\n".join(f"{n}. step {n}" for n in range(1, 10)), [f"step {n}" for n in range(1, 7)]),
    ],
)
def test_steps_are_read_from_a_list_or_lines(reply: str, steps: list[str]) -> None:
    assert parse_steps(reply, 6) == steps


@pytest.mark.parametrize(
    ("reply", "verdict", "reasons"),
    [
        ('{"verdict": "VERIFIED", "reasons": ["has a docstring"]}', "VERIFIED",
         ("has a docstring",)),
        ('Sure:\n```json\n{"verdict": "not verified", "reasons": "no test ran"}\n```',
         "NOT_VERIFIED", ("no test ran",)),
        ('{"verdict": "NOT_VERIFIED", "reason": "util.py unchanged"}', "NOT_VERIFIED",
         ("util.py unchanged",)),
        ("VERIFIED: the docstring is there", "VERIFIED", ("the docstring is there",)),
        ("NOT_VERIFIED\n- no docstring\n- util.py unchanged", "NOT_VERIFIED",
         ("no docstring", "util.py unchanged")),
        ("**NOT VERIFIED** - the tests were not run", "NOT_VERIFIED",
         ("the tests were not run",)),
    ],
)  # fmt: skip
def test_a_verdict_is_read_from_json_or_its_first_line(
    reply: str, verdict: str, reasons: tuple[str, ...]
) -> None:
    assert parse_verdict(reply, 2) == VerifierVerdict(verdict, reasons, 2)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Looks good to me, VERIFIED.", "starts with no verdict"),
        ('{"verdict": "PROBABLY", "reasons": []}', "'PROBABLY' is neither"),
        ("", "starts with no verdict"),
        ("VERIFIEDISH: maybe", "starts with no verdict"),
        ("Verified that util.py exists.\nNOT_VERIFIED: no docstring", "starts with no verdict"),
        ("verified: false", "starts with no verdict"),
        ('{"verdict": "verified", "reasons": []}', "'verified' is neither"),
        ("VERIFIED? No. The docstring is missing.", "VERIFIED and also something else"),
        ("VERIFIED: it has one\n- but it is not verified that it runs", "and also something"),
        ('Like {"verdict": "VERIFIED"}; mine: {"verdict": "NOT_VERIFIED"}', "and also"),
    ],
)
def test_an_unreadable_verdict_is_not_verified(reply: str, why: str) -> None:
    judged = parse_verdict(reply, 1)
    assert judged.verdict == "NOT_VERIFIED" and not judged.verified
    assert judged.reasons[0].startswith("the verifier's reply could not be read")
    assert why in judged.reasons[0]


def test_the_verdict_line_names_the_model_verifier() -> None:
    assert VerifierVerdict("VERIFIED", ("a", "b"), 1).line() == "model verifier: VERIFIED — a; b"
    assert VerifierVerdict("NOT_VERIFIED", (), 1).line() == "model verifier: NOT_VERIFIED"
    revived = VerifierVerdict("VERIFIED", ["a"], 1)  # type: ignore[arg-type]  # as a checkpoint
    assert revived.reasons == ("a",)
