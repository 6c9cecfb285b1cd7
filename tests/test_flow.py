"""The seed flow with a scripted model, real files and real processes: a planned tool's
result goes back to planning (multi-step tasks), and the planner's tool rounds are
capped. The routes (explain, edit, run_command) are in test_routes.py."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import FIXED, buggy_folder, run_in_process, whole_file

PRE_PLAN = json.dumps({"kind": "code_change", "confidence": 0.6})
LIST = json.dumps(
    {"action": "tool", "reasoning": "see the files first", "tool_calls": [
        {"tool": "list_files", "args": {"path": "."}}]}
)  # fmt: skip
DELEGATE = json.dumps({"action": "delegate", "agent": "agent:coder", "reasoning": "fix it"})


def test_list_the_files_then_fix_the_bug(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    task = "look at the files in this project and then fix the bug"
    replies = [PRE_PLAN, LIST, DELEGATE, whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(
        root, replies, task=task, overrides=["agents.configs.reviewer.description=Reviews"]
    )
    assert result.status == "verified", result.message
    assert (root / "main.py").read_text() == FIXED
    nodes = [e.data["node"] for e in events if e.kind == "node.start"]
    assert nodes[:5] == ["textual_pre_plan", "llm_pre_plan", "llm_plan", "tool", "llm_plan"]
    assert nodes[-5:] == ["prepare", "agent", "finish", "verify", "review"]
    plans = [e.data for e in events if e.kind == "model.request"][2]["messages"]
    shown = plans[-1]["content"]  # the second planning call sees what list_files returned
    assert "list_files" in shown and "main.py" in shown and "expected.txt" in shown


def test_planner_tool_rounds_are_capped(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    replies = [PRE_PLAN, LIST, LIST, LIST]
    overrides = ["agents.configs.reviewer.description=Reviews", "planning.max_tool_rounds=2"]
    result, events, _ = run_in_process(root, replies, task="list things", overrides=overrides)
    assert [e.data["tool"] for e in events if e.kind == "tool.call"] == ["list_files"] * 2
    assert result.status == "done" and "max_tool_rounds (2)" in result.message
    assert "main.py" in result.final_response and result.model_calls == 4
