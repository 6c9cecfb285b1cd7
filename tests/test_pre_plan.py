"""Phase 1, the classification call: a task it is sure changes code goes to the one
agent without a planner call, and a reply cut at its token cap still counts by the
fields it completed."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FIXED, buggy_folder, run_in_process, whole_file

PLAN = '{"action": "delegate", "agent": "agent:coder", "reasoning": "a code fix"}'
TASK = "the sum printed by the program is wrong, fix it"  # no @file: phase 1 classifies it


def requests(events: list) -> list[dict]:
    return [e.data for e in events if e.kind == "model.request"]


@pytest.mark.slow
def test_a_sure_code_change_skips_the_planner_call(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "w")
    sure = '{"kind": "code_change", "confidence": 0.95}'
    result, events, _ = run_in_process(root, [sure, whole_file("main.py", FIXED)], task=TASK)
    assert result.status == "verified" and result.model_calls == 2
    decision = next(e.data for e in events if e.kind == "plan.decision")
    assert decision["reasoning"].endswith("a single agent: nothing to choose")
    assert requests(events)[0]["max_tokens"] == 160  # planning.pre_plan_max_tokens


@pytest.mark.slow
def test_an_unsure_code_change_still_asks_the_planner(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "w")
    unsure = '{"kind": "code_change", "confidence": 0.5}'
    replies = [unsure, PLAN, whole_file("main.py", FIXED)]
    result, _, _ = run_in_process(root, replies, task=TASK)
    assert result.status == "verified" and result.model_calls == 3


@pytest.mark.slow
def test_a_reply_cut_at_its_cap_is_read_by_the_fields_it_completed(tmp_path: Path) -> None:
    """The model answered at length inside its JSON; cut, its kind still routes it."""
    root = buggy_folder(tmp_path / "w")
    cut = {
        "content": '```json\n{"kind": "code_change", "confidence": 0.95, "response": "The sum',
        "finish_reason": "length",
    }
    result, _, _ = run_in_process(root, [cut, whole_file("main.py", FIXED)], task=TASK)
    assert result.status == "verified" and result.model_calls == 2


@pytest.mark.slow
def test_a_cut_greeting_answer_is_not_given_as_the_answer(tmp_path: Path) -> None:
    """A cut `response` is dropped (half an answer is no answer): the planner decides."""
    root = buggy_folder(tmp_path / "w")
    cut = {
        "content": '{"kind": "question", "confidence": 0.99, "response": "Python is a',
        "finish_reason": "length",
    }
    answer = '{"action": "respond", "response": "Python is a programming language."}'
    result, _, _ = run_in_process(root, [cut, answer], task="tidy up please")
    assert result.model_calls == 2 and "programming language" in result.final_response
