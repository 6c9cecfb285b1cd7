"""The routes (edit, explain, run_command) through the run graph, with a scripted model,
real files and real shells: explain (the ask graph answers, nothing is edited or checked), edit (the
coder), run_command (a shell command after the user's yes, or not after a no), phase 0's
forms and the planner's structured choice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    BUGGY,
    FIXED,
    buggy_folder,
    run_cli,
    run_in_process,
    scripted_profile,
    tool_calls,
    whole_file,
)

from codur.planning.textual import fast_path

PRE_PLAN = json.dumps({"kind": "unclear", "confidence": 0.4})
# The ask graph's five calls: a plan, a tool call, the step's summary, FINISH, the answer.
ASK = [
    json.dumps(["Read main.py and find where the total is computed"]),
    tool_calls(("read_file", {"path": "main.py"})),
    "total() in main.py:3 loops over range(len(xs) - 1).",
    json.dumps({"decision": "FINISH", "reason": "the loop is found"}),
    "`total` stops one element short: its loop runs over `range(len(xs) - 1)` (`main.py:3`).",
]
RESEARCH = "ask.direct_answer=false"
"""ASK scripts the ask graph's research loop, which a well-covered question skips."""
ASK_NODES = [
    "retrieve", "planner", "setup_executor", "executor_llm", "tool_node", "executor_llm",
    "aggregate", "refinery", "synthesizer",
]  # fmt: skip


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file but Codur's own `.codur/` (the code index the ask graph searches)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] != ".codur"
    }


def nodes(events: list[Any]) -> list[str]:
    return [e.data["node"] for e in events if e.kind == "node.start"]


def kinds(events: list[Any], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in events if e.kind == kind]


@pytest.mark.parametrize(
    ("task", "route", "detail"),
    [
        ("explain main.py", "explain", "main.py"),
        ("what does @main.py do?", "explain", "main.py"),
        ("why does @main.py print 6?", "explain", ""),
        ("How do I make main.py print 10?", "explain", ""),
        ("explain how @main.py picks its discount", "explain", "main.py"),
        ("Describe the config loader.", "explain", ""),
        ("explain @a.py and @b.py", "explain", ""),  # two files: the question says which
        ("Explain. Then fix @main.py", None, ""),  # two sentences: the planner decides
        ("run `pytest -q tests`", "run_command", "pytest -q tests"),
        ("can you fix @main.py?", None, ""),  # a yes/no question: the planner decides
        ("how about fixing @main.py?", None, ""),  # a suggestion, not a question
        ("why not fix main.py?", None, ""),
        ("Fix @main.py. Why does it print 6?", None, ""),  # two sentences
        ("why does @main.py print 6", None, ""),  # no question mark
        ("fix @main.py", None, ""),
        ("run the tests", None, ""),  # no command given
    ],
)
def test_phase_0_routes_only_unambiguous_forms(task: str, route: str | None, detail: str) -> None:
    decision = fast_path(task, "hi")
    assert (decision.kind if decision else None) == route
    if decision is not None:
        assert (decision.path or decision.command) == detail


def test_the_folders_check_fails(tmp_path: Path) -> None:
    """The folder's check really fails (else the byte-identity below proves little)."""
    root = buggy_folder(tmp_path / "work")
    run = subprocess.run([sys.executable, "main.py"], cwd=root, capture_output=True, text=True)
    assert run.stdout == "6\n" != (root / "expected.txt").read_text()


@pytest.mark.slow
def test_explain_answers_through_ask_mode_and_changes_nothing(tmp_path: Path) -> None:
    """`codur "explain @main.py"` in a folder whose check fails: the ask graph answers
    with path:line, exit 0, every file byte-identical, no check, repair or sampling."""
    root = buggy_folder(tmp_path / "work")
    (root / "notes.bin").write_bytes(b"\x00\xffkeep\r\n")
    before = snapshot(root)
    flags = scripted_profile(tmp_path, ASK, repair=True)
    flags += ["-o", "sampling.candidates=3", "-o", "log.enabled=false", "-o", RESEARCH]
    done = run_cli(["--json", *flags, "explain @main.py"], root)
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == before
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    started = [e["node"] for e in events if e["event"] == "node.start"]
    assert started == ["textual_pre_plan", "explain", *ASK_NODES]
    assert not {"verify.run", "file.write", "repair.start"} & {e["event"] for e in events}
    end = events[-1]
    assert end["event"] == "run.end" and end["status"] == "done" and end["exit_code"] == 0
    assert "(`main.py:3`)" in end["final_response"] and end["files_changed"] == []
    assert "answered from the files" in end["message"] and "not found" not in end["message"]

    flags = scripted_profile(tmp_path, ASK, name="p", repair=True)
    plain = run_cli([*flags, "-o", "log.enabled=false", "-o", RESEARCH, "explain @main.py"], root)
    assert plain.returncode == 0, plain.stderr
    assert "its loop runs over `range(len(xs) - 1)` (`main.py:3`)" in plain.stdout
    assert snapshot(root) == before


def test_a_question_the_planner_recognises_goes_to_ask_mode(tmp_path: Path) -> None:
    """A yes/no question naming a file, one agent: not phase 0's form, so the planner's
    structured reply picks the route (no "nothing to choose" shortcut for a question)."""
    root = buggy_folder(tmp_path / "work")
    before = snapshot(root)
    plan = json.dumps({"action": "delegate", "route": "explain", "reasoning": "a question"})
    task = "Can you tell me where @main.py computes the total?"
    result, events, _ = run_in_process(root, [plan, *ASK], task=task, overrides=[RESEARCH])
    assert result.status == "done" and result.exit_code == 0, result.message
    assert nodes(events) == ["textual_pre_plan", "llm_pre_plan", "llm_plan", "explain", *ASK_NODES]
    assert kinds(events, "plan.decision")[0]["route"] == "explain"
    assert "`main.py:3`" in result.final_response and result.model_calls == 6
    assert snapshot(root) == before


def test_the_planner_recognises_a_question_without_files(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    plan = json.dumps({"action": "delegate", "route": "explain"})
    task = "tell me where the total gets computed"
    result, events, _ = run_in_process(
        root, [PRE_PLAN, plan, *ASK], task=task, overrides=[RESEARCH]
    )
    assert result.status == "done" and "`main.py:3`" in result.final_response
    assert nodes(events)[:4] == ["textual_pre_plan", "llm_pre_plan", "llm_plan", "explain"]
    assert (root / "main.py").read_text() == BUGGY


def test_edit_route_goes_to_the_coder_and_is_verified(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    plan = json.dumps({"action": "delegate", "route": "edit", "agent": "agent:coder"})
    overrides = ["agents.configs.reviewer.description=Reviews code"]  # two agents: a choice
    replies = [plan, whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(root, replies, overrides=overrides)
    assert result.status == "verified", result.message
    assert (root / "main.py").read_text() == FIXED
    assert nodes(events)[2:5] == ["llm_plan", "delegate", "verify"]
    assert "explain" not in nodes(events)


def test_run_command_runs_after_a_yes(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    asked: list[str] = []

    def yes(question: str, detail: str) -> bool:
        asked.append(question)
        return True

    task = "run `python main.py > out.txt; echo ran`"
    result, events, _ = run_in_process(root, [], task=task, confirm=yes)
    assert result.status == "done" and result.exit_code == 0 and result.model_calls == 0
    assert nodes(events) == ["textual_pre_plan", "run_command"]
    assert asked == ["Allow the agent to run `python main.py > out.txt; echo ran`?"]
    assert (root / "out.txt").read_text() == "6\n"  # a real shell ran the real program
    assert "ran" in result.final_response and "exited with 0" in result.message
    assert result.run_changes == ["out.txt"]


def test_run_command_from_the_planner_is_not_run_after_a_no(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    plan = json.dumps({"action": "delegate", "route": "run_command", "command": "touch ran"})
    task = "make an empty file called ran with the shell"
    result, events, _ = run_in_process(
        root, [PRE_PLAN, plan], task=task, confirm=lambda q, d: False
    )
    assert result.status == "unverified" and result.exit_code == 1
    assert result.message == "run_command failed: the user declined: run `touch ran`"
    assert not (root / "ran").exists()
    assert nodes(events) == ["textual_pre_plan", "llm_pre_plan", "llm_plan", "run_command"]
    assert kinds(events, "approval")[0]["approved"] is False


def test_run_command_with_nobody_to_ask_stops_before_it(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    result, _, _ = run_in_process(root, [], task="run `touch ran`")  # confirm None
    assert result.status == "approval" and result.exit_code == 5
    assert not (root / "ran").exists()


def test_a_failing_command_ends_unverified_with_its_exit_code(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    result, _, _ = run_in_process(
        root, [], task="run `exit 3`", overrides=["approval.mode=full-auto"]
    )
    assert result.status == "unverified" and result.message == "`exit 3` exited with 3"


def test_a_run_command_plan_without_a_command_is_asked_again(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    empty = json.dumps({"action": "delegate", "route": "run_command"})
    plan = json.dumps({"action": "delegate", "route": "run_command", "command": "echo hi"})
    result, events, _ = run_in_process(
        root, [PRE_PLAN, empty, plan], task="say hi", overrides=["approval.mode=full-auto"]
    )
    assert kinds(events, "plan.invalid")[0]["error"] == "route 'run_command' needs a command"
    assert result.status == "done" and result.final_response.endswith("hi")
