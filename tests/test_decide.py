"""The graph's decision tables, row by row: `decide` (review) and `on_error` are pure
functions of the facts."""

from __future__ import annotations

from dataclasses import fields
from typing import get_args

import pytest

from codur.graph.decide import decide
from codur.graph.decision import MAX_REPEATS, Decision, Facts, Goto, PlanFacts
from codur.graph.node_names import END, NODES
from codur.graph.on_error import MAX_NODE_RETRIES, ErrorFacts, on_error
from codur.planning.verdict import Verdict, VerifierVerdict


def verdict(word: Verdict, *reasons: str) -> VerifierVerdict:
    """The model verifier's judgement of the first plan's completion."""
    return VerifierVerdict(word, reasons, 1)


def plan(iteration: int, **facts: object) -> PlanFacts:
    """Plan mode's facts while the agent works on plan `iteration`."""
    return PlanFacts(iteration, **facts)  # type: ignore[arg-type]


FAILING = {"strategy": "output", "passed": False}
PASSING = {
    "strategy": "output",
    "passed": True,
    "checks": "python main.py: same output",
    "evidence": "project",
}
EXAMPLES = {**PASSING, "strategy": "tests", "evidence": "docstring", "examples_only": True}
"""A pass that rests only on the docstrings' examples (derived evidence: `checked`)."""

ROWS: list[tuple[str, dict, tuple]] = [
    # (row, facts, (goto, status, record, feedback, answer))
    ("first check fails, repair first", {"kind": None, **FAILING, "repairable": True,
     "repair_first": True}, ("repair", None, None, False, False)),
    ("first check fails, no model: repair", {"kind": None, **FAILING, "repairable": True,
     "model": False}, ("repair", None, None, False, False)),
    ("first check passes, no model", {"kind": None, **PASSING, "model": False},
     (END, "verified", None, False, False)),
    ("first check passes, no model, only the task's statements", {"kind": None, **PASSING,
     "evidence": "task", "model": False}, (END, "checked", None, False, False)),
    ("first check static, no model", {"kind": None, "strategy": "static", "passed": True,
     "model": False}, (END, "unverified", None, False, False)),
    ("first check: the agent runs", {"kind": None, **FAILING, "repairable": True},
     ("execute", None, None, False, False)),
    ("repair found nothing before any attempt", {"kind": "no_repair", "first": True,
     **FAILING}, ("execute", None, None, False, False)),
    ("the agent failed, another is left", {"kind": "agent_failed", **FAILING,
     "fallback": True}, ("delegate", None, "agent_failed", False, False)),
    ("the agent failed, none left", {"kind": "agent_failed", **FAILING, "agent_error":
     "agent:codex exited with code 1"}, (END, "failed", "agent_failed", False, False)),
    ("the agent failed after a fix that passes", {"kind": "agent_failed", **PASSING,
     "changed_files": True, "fallback": True}, (END, "verified", "applied", False, False)),
    ("cut reply", {"kind": "cut", **FAILING}, ("delegate", None, "cut", False, False)),
    ("duplicate of a rejected reply", {"kind": "duplicate", "repeats_rejected": True},
     (END, "stuck", "duplicate", False, False)),
    ("duplicates up to the limit", {"kind": "duplicate", "repeats": MAX_REPEATS},
     (END, "stuck", "duplicate", False, False)),
    ("a first duplicate", {"kind": "duplicate", "repeats": 1},
     ("delegate", None, "duplicate", False, False)),
    ("rejected edit", {"kind": "rejected", **FAILING}, ("delegate", None, "rejected", True, False)),
    ("nothing checks, nothing changed", {"kind": "no_edit", "strategy": "none"},
     (END, "done", None, False, True)),
    ("nothing checks, files changed", {"kind": "edited", "strategy": "none",
     "run_changes": ("main.py",)}, (END, "unverified", None, False, True)),
    ("passed static only", {"kind": "edited", "strategy": "static", "passed": True,
     "run_changes": ("lib.py",)}, (END, "unverified", "applied", False, True)),
    ("passed, model test passed before", {"kind": "edited", **PASSING, "unshown_fix": True},
     (END, "unverified", "applied", False, False)),
    ("passed, a repair's constant-only fix unconfirmed", {"kind": "repaired", **PASSING,
     "repair_doubt": "no model reviewed it"}, (END, "unverified", "applied", False, False)),
    ("verified: the project's own check passed", {"kind": "edited", **PASSING},
     (END, "verified", "applied", False, False)),
    ("passed the task's statements only: checked", {"kind": "edited", **PASSING, "evidence":
     "task"}, (END, "checked", "applied", False, False)),
    ("passed a test the model wrote only: checked", {"kind": "edited", **PASSING, "evidence":
     "model"}, (END, "checked", "applied", False, False)),
    ("passed, the evidence unknown (an older checkpoint): checked, never verified", {"kind":
     "edited", **PASSING, "evidence": None}, (END, "checked", "applied", False, False)),
    ("passed the examples only: cross-check", {"kind": "edited", **EXAMPLES, "crosscheck":
     True, "changed_files": True}, ("crosscheck", None, "applied", False, False)),
    ("a repair of the model's change passed the examples only: cross-check", {"kind":
     "repaired", **EXAMPLES, "crosscheck": True, "changed_files": True, "model_changed":
     True}, ("crosscheck", None, "applied", False, False)),
    ("a repair before any model change passed the examples only", {"kind": "repaired",
     **EXAMPLES, "crosscheck": True, "changed_files": True, "model_failed_before": True},
     (END, "checked", "applied", False, False)),
    ("passed the examples only, cross-check off", {"kind": "edited", **EXAMPLES,
     "changed_files": True}, (END, "checked", "applied", False, False)),
    ("the cross-check kept the change", {"kind": "edited", **EXAMPLES, "crosscheck": True,
     "changed_files": True, "crosschecked": "kept"}, (END, "checked", None, False, False)),
    ("passed the examples only, cross-checked", {"kind": "crosschecked", **EXAMPLES,
     "crosscheck": True, "changed_files": True, "crosschecked":
     "cross-checked on 9 probe calls"}, (END, "checked", "applied", False, False)),
    ("the cross-check's reply fails on the real files", {"kind": "crosschecked", **FAILING,
     "changed_files": True, "repairable": True, "crosschecked": "cross-checked",
     "put_back": True}, ("crosscheck", None, "applied", False, False)),
    ("the change it replaced, put back, passes", {"kind": "put_back", **EXAMPLES,
     "crosscheck": True, "changed_files": True, "crosschecked": "cross-checked; put back"},
     (END, "checked", None, False, False)),
    ("new failure: repair search", {"kind": "edited", **FAILING, "repairable": True},
     ("repair", None, "applied", False, False)),
    ("the same failure twice", {"kind": "edited", **FAILING, "changed_files": True,
     "seen_failure": True}, (END, "stuck", "applied", False, False)),
    ("sampled, nothing new", {"kind": "no_sample", **FAILING, "new_failures": False},
     (END, "stuck", "applied", False, False)),
    ("sampled, no candidate applied", {"kind": "no_sample", **FAILING, "sampled_ran": False},
     (END, "stuck", "applied", False, False)),
    ("failing: try again with the failure", {"kind": "edited", **FAILING,
     "changed_files": True}, ("delegate", None, "applied", True, False)),
    ("failing after a failed model attempt: sample", {"kind": "edited", **FAILING,
     "sampling": True, "model_failed_before": True}, ("sample", None, "applied", True, False)),
    ("repair found nothing after an attempt", {"kind": "no_repair", **FAILING},
     ("delegate", None, None, True, False)),
    ("iteration limit", {"kind": "edited", **FAILING, "iterations": 9, "max_iterations": 10},
     (END, "unverified", "applied", False, False)),
    ("no model after an attempt", {"kind": "no_repair", **FAILING, "model": False,
     "repairs_tried": True}, (END, "unverified", None, False, False)),
    ("no model, the search's fix kept out", {"kind": "no_repair", **FAILING, "model": False,
     "repairs_tried": True, "repair_kept_out": "the repair search's fix of a.py was declined"},
     (END, "unverified", None, False, False)),
    # plan mode (plan_verify): chosen after the first check ...
    ("auto, nothing checks behaviour: plan", {"kind": None, "strategy": "static",
     "passed": True, "mode": "auto"}, ("planner", None, None, False, False)),
    ("auto, no check at all: plan", {"kind": None, "strategy": "none", "mode": "auto"},
     ("planner", None, None, False, False)),
    ("auto, expected output waits for a program: the check-driven loop", {"kind": None,
     "strategy": "none", "mode": "auto", "oracle": True}, ("execute", None, None, False,
     False)),
    ("auto, a behavioural check: the check-driven loop", {"kind": None, **FAILING,
     "mode": "auto"}, ("execute", None, None, False, False)),
    ("auto, a model test that passed before: no check, plan", {"kind": None, **PASSING,
     "unshown_fix": True, "mode": "auto"}, ("planner", None, None, False, False)),
    ("plan_verify, even with a check", {"kind": None, **FAILING, "mode": "plan_verify"},
     ("planner", None, None, False, False)),
    ("check mode never plans", {"kind": None, "strategy": "none", "mode": "check"},
     ("execute", None, None, False, False)),
    ("auto, no model: no plan", {"kind": None, "strategy": "none", "mode": "auto",
     "model": False}, (END, "unverified", None, False, False)),
    # ... then the agent's completion: the checks first, the model verifier after
    ("the loop ended without attempt_completion", {"kind": "no_completion",
     "plan": plan(1)}, (END, "limit", None, False, False)),
    ("completed, a check fails, plans left: replan", {"kind": "completed", **FAILING,
     "plan": plan(1, check_failure="Expected 10, got 6")},
     ("replan", None, "completed", False, False)),
    ("completed, a check fails at the cap", {"kind": "completed", **FAILING,
     "plan": plan(2, max_iterations=2)}, (END, "unverified", "completed",
     False, True)),
    ("the model's VERIFIED never passes a failing check", {"kind": "completed", **FAILING,
     "plan": plan(2, max_iterations=2, judged=verdict("VERIFIED"))},
     (END, "unverified", "completed", False, True)),
    ("completed, a static check fails: replan", {"kind": "completed", "strategy": "static",
     "passed": False, "plan": plan(1)}, ("replan", None, "completed", False, False)),
    ("completed, not judged yet: verifier", {"kind": "completed", "strategy": "static",
     "passed": True, "plan": plan(1)}, ("verifier", None, None, False, False)),
    ("NOT_VERIFIED, plans left: replan", {"kind": "completed", "strategy": "none",
     "plan": plan(2, judged=verdict("NOT_VERIFIED", "no docstring"))},
     ("replan", None, "completed", False, False)),
    ("NOT_VERIFIED at the cap", {"kind": "completed", "strategy": "none",
     "plan": plan(2, max_iterations=2, judged=verdict("NOT_VERIFIED"))},
     (END, "unverified", "completed", False, True)),
    ("VERIFIED, and a behavioural check passed", {"kind": "completed", **PASSING,
     "plan": plan(1, judged=verdict("VERIFIED"))}, (END, "verified", "completed", False,
     True)),
    ("VERIFIED, and only a derived check passed: checked", {"kind": "completed", **EXAMPLES,
     "plan": plan(1, judged=verdict("VERIFIED"))}, (END, "checked", "completed", False,
     True)),
    ("VERIFIED, only the model judged: done", {"kind": "completed", "strategy": "static",
     "passed": True, "plan": plan(1, judged=verdict("VERIFIED"))},
     (END, "done", "completed", False, True)),
    ("VERIFIED, only the model judged changed code: unverified", {"kind": "completed",
     "strategy": "static", "passed": True, "plan": plan(1, judged=verdict("VERIFIED")),
     "run_changes": ("util.py",)}, (END, "unverified", "completed", False, True)),
    ("expected output that never ran outranks VERIFIED: replan", {"kind": "completed",
     "strategy": "none", "oracle": True, "plan": plan(1, judged=verdict("VERIFIED"))},
     ("replan", None, "completed", False, False)),
    ("expected output that never ran, at the cap: unverified", {"kind": "completed",
     "strategy": "none", "oracle": True, "plan": plan(2, max_iterations=2,
     judged=verdict("VERIFIED"))}, (END, "unverified", "completed", False, True)),
    ("a completion outside plan mode: the checks judge it", {"kind": "completed", **PASSING},
     (END, "verified", "applied", False, False)),
    ("a retry with replan_on_retry plans again", {"kind": "edited", **FAILING,
     "changed_files": True, "replan_on_retry": True}, ("llm_plan", None, "applied", True,
     False)),
    ("plan mode retries a rejected reply without sampling", {"kind": "rejected", **FAILING,
     "sampling": True, "model_failed_before": True, "plan": plan(1)},
     ("delegate", None, "rejected", True, False)),
]  # fmt: skip


@pytest.mark.parametrize(("row", "given", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_decision_table(row: str, given: dict, expected: tuple) -> None:
    decision = decide(Facts(**given))
    goto, status, record, feedback, answer = expected
    assert (decision.goto, decision.status, decision.record) == (goto, status, record), row
    assert (decision.feedback, decision.answer) == (feedback, answer), row


def test_only_the_fallback_hands_the_task_over() -> None:
    """Both the fallback and a retry go to delegate; only the fallback names a successor."""
    handed = [row for row, given, _ in ROWS if decide(Facts(**given)).handoff]
    assert handed == ["the agent failed, another is left"]


def test_messages_say_why() -> None:
    assert decide(Facts("edited", **PASSING)).message == "python main.py: same output"
    limit = decide(Facts("edited", **FAILING, iterations=4, max_iterations=5))
    assert limit.message == "no verification passed in 5 iterations"
    no_model = decide(Facts("no_repair", **FAILING, model=False, repairs_tried=True))
    assert no_model.message == "no model (--no-model): the repair search found no fix"
    declined = "the repair search's fix of a.py was declined"
    kept_out = decide(Facts("no_repair", **FAILING, model=False, repair_kept_out=declined))
    assert kept_out.message == f"no model (--no-model): {declined}"
    failed = decide(Facts("agent_failed", **FAILING, agent_error="agent:codex timed out"))
    assert failed.message == "agent:codex timed out"
    changed = decide(Facts("edited", strategy="none", run_changes=("a.py", "b.py")))
    assert changed.message.endswith("changed a.py, b.py")
    plan = {"kind": "completed", "strategy": "none"}
    judged = decide(
        Facts(**plan, plan=PlanFacts(1, judged=verdict("VERIFIED", "adds the docstring")))
    )
    assert judged.message == "model verifier: VERIFIED — adds the docstring"
    refused = decide(Facts(**plan, plan=PlanFacts(1, judged=verdict("NOT_VERIFIED", "a", "b"))))
    assert refused.reasons == ("a", "b")
    capped = decide(Facts(**plan, plan=PlanFacts(3, judged=verdict("NOT_VERIFIED", "a", "b"))))
    assert capped.message == "model verifier: NOT_VERIFIED — a; b"
    failing = decide(Facts("completed", **FAILING, plan=PlanFacts(1, check_failure="got 6")))
    assert failing.reasons == ("got 6",)
    cap = decide(Facts("completed", **FAILING, plan=PlanFacts(3, check_failure="got 6")))
    assert cap.message == "the check still fails after 3 plan(s): got 6"
    checked = decide(Facts("crosschecked", **PASSING, crosschecked="cross-checked: kept"))
    assert checked.message == "python main.py: same output; cross-checked: kept"


def test_every_goto_and_every_fact_is_exercised() -> None:
    """The table covers each destination, and each fact changes some row's decision."""
    gotos = {decide(Facts(**given)).goto for _, given, _ in ROWS}
    assert gotos == set(get_args(Goto)) and gotos <= {*NODES, END}  # each a node (or the end)
    used = {key for _, given, _ in ROWS for key in given} | {"kind"}
    assert {f.name for f in fields(Facts)} - used == set()
    plans = [given["plan"] for _, given, _ in ROWS if "plan" in given]
    set_in_plans = {
        f.name for p in plans for f in fields(PlanFacts) if getattr(p, f.name) != f.default
    }
    assert set_in_plans == {f.name for f in fields(PlanFacts)}
    assert {f.name for f in fields(Decision)} >= {"goto", "status", "record", "feedback"}


ERROR_ROWS: list[tuple[str, dict, str]] = [
    # (row, facts, decision)
    (
        "the agent cannot run, another is left",
        {"typed": True, "errors": 1, "fallback": True},
        "fallback",
    ),
    ("a typed error keeps its own ending", {"typed": True, "errors": 1}, "raise"),
    ("a typed error after retries too", {"typed": True, "errors": 9}, "raise"),
    ("first error: retry", {"typed": False, "errors": 1}, "retry"),
    ("the last retry", {"typed": False, "errors": MAX_NODE_RETRIES}, "retry"),
    ("retries used up: end", {"typed": False, "errors": MAX_NODE_RETRIES + 1}, "end"),
    ("a lower cap", {"typed": False, "errors": 2, "max_retries": 1}, "end"),
    ("no retries at all", {"typed": False, "errors": 1, "max_retries": 0}, "end"),
    ("effects would repeat: end", {"typed": False, "errors": 1, "repeatable": False}, "end"),
    ("typed, effects or not", {"typed": True, "errors": 1, "repeatable": False}, "raise"),
]


@pytest.mark.parametrize(("row", "given", "expected"), ERROR_ROWS, ids=[r[0] for r in ERROR_ROWS])
def test_node_error_table(row: str, given: dict, expected: str) -> None:
    assert on_error(ErrorFacts(**given)) == expected, row


def test_node_errors_are_bounded() -> None:
    """Whatever the count, an untyped error is retried at most MAX_NODE_RETRIES times."""
    retries = [on_error(ErrorFacts(False, n)) for n in range(1, 50)]
    assert retries.count("retry") == MAX_NODE_RETRIES == 3
    assert set(retries[MAX_NODE_RETRIES:]) == {"end"}
