"""The seed flow with a scripted model, real files and real processes: a planned tool's
result goes back to planning (multi-step tasks), and intent decides verification (an
answer never edits a file and never runs the repair search or sampling)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import BUGGY, FIXED, run_cli, run_in_process, scripted_profile, whole_file

PRE_PLAN = json.dumps({"kind": "code_change", "confidence": 0.6})
LIST = json.dumps(
    {"action": "tool", "reasoning": "see the files first", "tool_calls": [
        {"tool": "list_files", "args": {"path": "."}}]}
)  # fmt: skip
DELEGATE = json.dumps({"action": "delegate", "agent": "agent:coder", "reasoning": "fix it"})


def folder(root: Path) -> Path:
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_list_the_files_then_fix_the_bug(tmp_path: Path) -> None:
    root = folder(tmp_path / "work")
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
    root = folder(tmp_path / "work")
    replies = [PRE_PLAN, LIST, LIST, LIST]
    overrides = ["agents.configs.reviewer.description=Reviews", "planning.max_tool_rounds=2"]
    result, events, _ = run_in_process(root, replies, task="list things", overrides=overrides)
    assert [e.data["tool"] for e in events if e.kind == "tool.call"] == ["list_files"] * 2
    assert result.status == "done" and "max_tool_rounds (2)" in result.message
    assert "main.py" in result.final_response and result.model_calls == 4


def test_explain_leaves_every_file_byte_identical_and_prints_the_answer(tmp_path: Path) -> None:
    root = folder(tmp_path / "work")
    (root / "notes.bin").write_bytes(b"\x00\xffkeep\r\n")
    before = snapshot(root)
    answer = "main.py sums neighbouring pairs; the loop stops one short.\n\n" + whole_file(
        "main.py", FIXED
    )  # an answer that even carries an edit: nothing of it is written
    flags = scripted_profile(tmp_path, [answer], repair=True)
    flags += ["-o", "sampling.candidates=3", "-o", "log.enabled=false"]  # no repair, no sampling
    done = run_cli(["--json", *flags, "explain main.py"], root)
    assert done.returncode == 0, done.stderr
    assert snapshot(root) == before
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    kinds = [e["event"] for e in events]
    assert "verify.run" not in kinds and "file.write" not in kinds
    nodes = [e["node"] for e in events if e["event"] == "node.start"]
    assert nodes == [
        "textual_pre_plan",
        "delegate",
        "prepare",
        "agent",
        "finish",
        "verify",
        "review",
    ]
    assert next(e for e in events if e["event"] == "node.end" and e["node"] == "review")
    end = next(e for e in events if e["event"] == "run.end")
    assert end["status"] == "done" and "stops one short" in end["final_response"]
    plain = run_cli([*flags, "explain main.py"], root)
    assert "stops one short" in plain.stdout + plain.stderr
    assert snapshot(root) == before


def test_the_folders_check_fails(tmp_path: Path) -> None:
    """The explain test's folder really fails its check (else byte-identity proves little)."""
    import subprocess

    root = folder(tmp_path / "work")
    run = subprocess.run([sys.executable, "main.py"], cwd=root, capture_output=True, text=True)
    assert run.stdout != (root / "expected.txt").read_text()
