"""Approval modes on whole runs: a scripted model, real files, real programs; the user's
answers come through the confirm callback (the terminal's Confirm in real use)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import BUGGY, CLEANUP, FIXED, WRONG, run_cli, run_in_process, tool_calls, whole_file

from codur.errors import ExitCode
from codur.undo.snapshot import since_start

WRITE_AND_RUN = tool_calls(
    ("write_file", {"path": "cleanup.py", "content": CLEANUP}),
    ("run_python_file", {"path": "cleanup.py"}),
)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


class User:
    """Answers questions from a list, and remembers them (question, detail)."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str]] = []

    def __call__(self, question: str, detail: str) -> bool:
        self.asked.append((question, detail))
        return self.answers.pop(0)


def prompts(events: list) -> list[str]:
    return [
        "\n".join(str(m["content"]) for m in e.data["messages"])
        for e in events
        if e.kind == "model.request"
    ]


def test_suggest_shows_each_edit_and_a_declined_one_goes_back_to_the_model(work: Path) -> None:
    user = User(False, True)
    replies = [whole_file("main.py", WRONG), whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(
        work, replies, overrides=["approval.mode=suggest"], confirm=user
    )
    assert result.status == "verified" and (work / "main.py").read_text() == FIXED
    (first, diff), (second, _) = user.asked  # nothing else asked: the check runs freely
    assert first == second == "Allow the agent to write main.py?"
    assert "-    for i in range(len(xs) - 1):\n+    for i in range(len(xs) - 2):" in diff
    assert "the user declined this edit to main.py" in prompts(events)[1]
    declined = [e.data for e in events if e.kind == "approval"][0]
    assert declined == {
        "action": "edit", "what": "write main.py", "approved": False, "mode": "suggest"
    }  # fmt: skip


def test_auto_edit_asks_before_a_tool_runs_a_program_the_model_wrote(work: Path) -> None:
    user = User(False)  # no to running cleanup.py
    replies = [WRITE_AND_RUN, whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(work, replies, confirm=user)
    assert result.status == "verified" and (work / "data.csv").exists()
    assert user.asked == [
        ("Allow the agent to run `python cleanup.py` (cleanup.py: written in this run)?", "")
    ]
    refused = [e.data for e in events if e.kind == "tool.result" and "by" not in e.data][-1]
    assert (
        refused["ok"] is False
        and "the user declined: run `python cleanup.py`" in (refused["output"])
    )
    assert [e.data["action"] for e in events if e.kind == "approval"] == ["destructive"]


def test_auto_edit_asks_before_running_the_users_program_too(work: Path) -> None:
    user = User(True)
    run_main = tool_calls(("run_python_file", {"path": "main.py"}))
    result, events, _ = run_in_process(work, [run_main, whole_file("main.py", FIXED)], confirm=user)
    assert result.status == "verified"
    assert user.asked == [("Allow the agent to run `python main.py`?", "")]
    assert [e.data["action"] for e in events if e.kind == "approval"] == ["run"]


def test_full_auto_asks_nothing(work: Path) -> None:
    user = User()  # any question would fail: no answers left
    replies = [WRITE_AND_RUN, whole_file("main.py", FIXED)]
    result, _, _ = run_in_process(
        work, replies, overrides=["approval.mode=full-auto"], confirm=user
    )
    assert result.status == "verified" and not (work / "data.csv").exists() and not user.asked
    assert result.run_changes == ["cleanup.py", "data.csv", "main.py", "out.txt"]


def test_nobody_to_ask_stops_the_run_naming_the_action(work: Path) -> None:
    replies = [WRITE_AND_RUN, whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(work, replies)  # no terminal: confirm is None
    assert result.status == "approval" and result.exit_code == ExitCode.APPROVAL_NEEDED == 5
    assert result.message.startswith(
        "needs approval to run `python cleanup.py` (cleanup.py: written in this run) "
        "(approval mode auto-edit, and no terminal to ask)"
    )
    assert "--approval full-auto" in result.message
    assert (work / "data.csv").exists() and not (work / "out.txt").exists()
    assert result.run_changes == ["cleanup.py"]  # what undo would put back
    needed = [e.data for e in events if e.kind == "approval.needed"]
    assert needed == [
        {
            "action": "destructive",
            "what": "run `python cleanup.py` (cleanup.py: written in this run)",
            "mode": "auto-edit",
        }
    ]


def test_suggest_without_a_terminal_stops_before_the_first_edit(work: Path) -> None:
    result, _, _ = run_in_process(
        work, [whole_file("main.py", FIXED)], overrides=["approval.mode=suggest"]
    )
    assert result.status == "approval" and (work / "main.py").read_text() == BUGGY
    assert "needs approval to write main.py" in result.message
    assert "--approval auto-edit" in result.message and result.run_changes == []


@pytest.mark.slow
def test_the_check_asks_before_running_a_program_created_in_this_run(tmp_path: Path) -> None:
    """The check runs the user's programs freely, not one the model just created."""
    root = tmp_path / "work"
    root.mkdir()
    (root / "expected.txt").write_text("10\n")
    pre_plan = '{"kind": "code_change", "confidence": 0.9}'  # sure: no planner call
    no_test = "No test."  # asked for a test first: nothing in the folder checks the task yet
    replies = [pre_plan, no_test, whole_file("main.py", FIXED)]
    result, _, _ = run_in_process(root, replies, task="write main.py: it prints 10")
    assert result.status == "approval" and (root / "main.py").read_text() == FIXED
    assert "needs approval to run `python main.py` (main.py: written in this run)" in (
        result.message
    )
    user = User(True)
    (root / "main.py").unlink()
    result, _, _ = run_in_process(root, replies, task="write main.py: it prints 10", confirm=user)
    assert result.status == "verified" and len(user.asked) == 1


def test_a_program_written_just_before_the_run_is_not_the_runs(tmp_path: Path) -> None:
    """A script that writes main.py (ignored by git, so in no snapshot) and starts Codur a
    moment later: its check runs freely. A file time within 2 s of the run's start had
    made the file "written in this run", and the run stopped for approval (exit 5)."""
    import subprocess
    import time

    root = tmp_path / "work"
    root.mkdir()
    (root / "expected.txt").write_text("10\n")
    (root / ".gitignore").write_text("main.py\n")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "i"], cwd=root, check=True)
    (root / "main.py").write_text(BUGGY)
    time.sleep(0.3)  # Codur's own start takes longer than this
    result, events, _ = run_in_process(root, [], overrides=["runtime.max_llm_calls=0"])
    assert result.status != "approval", result.message
    assert any(e.kind == "program.start" for e in events)
    second = 1_000_000_000
    assert since_start(100 * second, 101 * second)  # whole seconds: a coarse clock (FAT)
    assert not since_start(100 * second + 7, 101 * second)  # a fine one: 1 s is before
    assert since_start(101 * second - 3_000_000, 101 * second)  # a tick behind


@pytest.mark.slow
def test_cli_approval_flags(tmp_path: Path, work: Path) -> None:
    both = run_cli(["--yes", "--approval", "suggest", "fix @main.py"], cwd=work)
    assert both.returncode == 2 and "contradicts --approval suggest" in both.stderr
    bad = run_cli(["--approval", "sometimes", "fix @main.py"], cwd=work)
    assert bad.returncode == 2 and "approval.mode" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    script = tmp_path / "s.yaml"
    script.write_text(f"- {whole_file('main.py', FIXED)!r}\n")
    flags = ["-o", "llm.profiles.s.provider=scripted", "-o", f"llm.profiles.s.script={script}"]
    stopped = run_cli(
        [*flags, "--profile", "s", "--approval", "suggest", "--json", "fix @main.py"], cwd=work
    )
    assert stopped.returncode == 5 and (work / "main.py").read_text() == BUGGY
    assert '"status": "approval"' in stopped.stdout.splitlines()[-1]
    assert "needs approval to write main.py" in stopped.stderr
