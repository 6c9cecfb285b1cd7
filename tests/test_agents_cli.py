"""agent:codex and agent:claude_code: their CLIs run as real processes (stand-ins on PATH
that take the real command lines and print the real output formats: cli_stand_ins.py)
inside Codur's sandbox, on real folders; the outcome is read from the process."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_stand_ins import install
from helpers import (
    BUGGY,
    FIXED,
    buggy_folder,
    delegate_to,
    run_cli,
    run_in_process,
    scripted_profile,
)

from codur.agents.claude_code import parse as parse_claude
from codur.agents.codex import parse as parse_codex
from codur.agents.registry import registered
from codur.config.agents import BUILTIN_AGENTS
from codur.sandbox.confine import detect
from codur.sandbox.readonly import EXIT_UNPROTECTED

CONFINER, NOT_CONFINED = detect("auto", 30)

FULL_AUTO = "approval.mode=full-auto"


@pytest.fixture
def cli_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder first on PATH for stand-ins, and a HOME of its own (the CLIs' state)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(home))
    return folder


def kinds(events: list[Any], kind: str) -> list[dict[str, Any]]:
    return [e.data for e in events if e.kind == kind]


def test_every_registered_agent_is_known_to_config() -> None:
    assert set(registered()) == set(BUILTIN_AGENTS)


def test_codex_fixes_the_file_through_its_cli(tmp_path: Path, cli_path: Path) -> None:
    install(cli_path, "codex")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.preferences.default_agent=agent:codex", FULL_AUTO]
    result, events, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=overrides)
    assert result.status == "verified", result.message
    assert (root / "main.py").read_text() == FIXED and result.files_changed == ["main.py"]
    start = kinds(events, "agent.run.start")[0]
    assert start["agent"] == "agent:codex" and start["command"][1:6] == [
        "exec", "--json", "--sandbox", "workspace-write", "--skip-git-repo-check",
    ]  # fmt: skip
    assert start["command"][-2:] == ["--", "PROMPT"] and "Task: fix @main.py" in start["prompt"]
    assert "Actual output:\n```\n6\n```" in start["prompt"]  # how the check fails, as for the coder
    end = kinds(events, "agent.run.end")[0]
    assert end["exit_code"] == 0 and end["input_tokens"] == 1200 and end["output_tokens"] == 80
    assert end["reply"].endswith("(asked: Task: fix @main.py)")  # it got the prompt
    # it wrote its session record under confinement: ~/.codex/sessions is writable for it
    home = Path(os.environ["HOME"])
    assert "Task: fix @main.py" in (home / ".codex/sessions/rollout.jsonl").read_text()
    assert kinds(events, "file.write") == [{"path": "main.py", "lines": 7, "by": "agent:codex"}]


def test_claude_code_fixes_the_file_through_its_cli(tmp_path: Path, cli_path: Path) -> None:
    install(cli_path, "claude")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.configs.claude.type=claude_code", "agents.configs.claude.model=sonnet"]
    overrides += ["agents.preferences.default_agent=agent:claude", FULL_AUTO]
    result, events, _ = run_in_process(root, [delegate_to("agent:claude")], overrides=overrides)
    assert result.status == "verified", result.message
    command = kinds(events, "agent.run.start")[0]["command"]
    assert command[1:3] == ["-p", "PROMPT"] and command[3:] == [
        "--output-format", "json", "--permission-mode", "acceptEdits", "--model", "sonnet",
    ]  # fmt: skip
    end = kinds(events, "agent.run.end")[0]
    assert end["exit_code"] == 0 and end["num_turns"] == 3


@pytest.mark.slow
@pytest.mark.skipif(CONFINER is None, reason=f"programs cannot be confined here: {NOT_CONFINED}")
def test_a_confined_cli_cannot_plant_git_hooks_or_its_settings(
    tmp_path: Path, cli_path: Path
) -> None:
    """What a CLI writes in the workspace's .git (a hook, core.hooksPath) or in its own
    settings would run later, outside the sandbox: it cannot write there."""
    install(cli_path, "codex", mode="escape")
    root = buggy_folder(tmp_path / "p")
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=30)
    git_config = (root / ".git/config").read_text()
    overrides = ["agents.preferences.default_agent=agent:codex", FULL_AUTO]
    result, events, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=overrides)
    home = Path(os.environ["HOME"])
    assert not (root / ".git/hooks/pre-commit").exists() and not (root / ".git-old").exists()
    assert (root / ".git/config").read_text() == git_config
    assert not (home / ".codex/config.toml").exists()
    end = kinds(events, "agent.run.end")[0]
    if end["exit_code"] == EXIT_UNPROTECTED:
        pytest.skip(f"{CONFINER.name} cannot keep .git read-only here: {result.message}")
    assert result.status == "verified", result.message
    tried = json.loads(end["reply"].split("tried: ", 1)[1].rsplit(" (asked:", 1)[0])
    assert set(tried) == {"hook", "config", "own_git", "settings"}
    assert "done" not in tried.values(), tried  # each refused: PermissionError or OSError
    assert "Task: fix @main.py" in (home / ".codex/sessions/rollout.jsonl").read_text()


def test_a_cli_that_fails_is_a_failed_agent_with_its_stderr(tmp_path: Path, cli_path: Path) -> None:
    install(cli_path, "codex", mode="fail")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.preferences.default_agent=agent:codex", FULL_AUTO]
    result, events, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=overrides)
    assert result.status == "failed" and result.exit_code == 3
    assert result.message == (
        "agent:codex exited with code 1: codex: error: 401 Unauthorized: your session "
        "expired, log in again"
    )
    assert (root / "main.py").read_text() == BUGGY


@pytest.mark.slow
def test_a_cli_past_its_timeout_is_stopped(tmp_path: Path, cli_path: Path) -> None:
    install(cli_path, "codex", mode="hang")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.configs.codex.type=codex", "agents.configs.codex.timeout_s=2"]
    overrides += ["agents.preferences.default_agent=agent:codex", FULL_AUTO]
    result, events, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=overrides)
    assert result.status == "failed"
    assert result.message == "agent:codex did not finish within 2 s (timeout_s); stopped"
    assert kinds(events, "agent.run.end")[0]["timed_out"] is True


def test_a_cli_changing_the_check_is_put_back(tmp_path: Path, cli_path: Path) -> None:
    install(cli_path, "codex", mode="tamper")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.preferences.default_agent=agent:codex", FULL_AUTO]
    result, events, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=overrides)
    assert result.status == "verified"  # on the fix, against the real expected output
    assert (root / "expected.txt").read_text() == "10\n"
    restored = kinds(events, "scope.restored")[0]
    assert restored["files"] == ["expected.txt"] and restored["by"] == "agent:codex"
    assert result.files_changed == ["main.py"]


def test_a_cli_fix_that_fails_the_check_is_retried_with_the_failure(
    tmp_path: Path, cli_path: Path
) -> None:
    """No sampling for a CLI agent (it edits the files itself): the retry is the CLI
    again, told how its first attempt failed."""
    install(cli_path, "codex", mode="wrong-first")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.preferences.default_agent=agent:codex", FULL_AUTO]
    overrides += ["sampling.candidates=2"]
    result, events, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=overrides)
    assert result.status == "verified" and result.iterations == 2
    nodes = [e.data["node"] for e in events if e.kind == "node.start"]
    assert "sample" not in nodes and nodes.count("prepare") == 2
    second = kinds(events, "agent.run.start")[1]["prompt"]
    assert "Earlier attempts that did not work" in second
    assert "changed main.py; the check still failed: output line 1 is '3'" in second


def test_agents_lists_the_cli_agents(tmp_path: Path) -> None:
    done = run_cli(
        ["agents", "-o", "agents.configs.fast.type=codex", "-o", "agents.configs.fast.model=o4"],
        tmp_path,
        env={"COLUMNS": "250"},
    )
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    fast = [c.strip() for c in rows["agent:fast"].split("│")]
    assert fast[1:5] == ["codex", "-", "codex (CLI)", "o4"]
    assert "(not offered to the planner)" in rows["agent:claude_code"]


def test_running_a_cli_agent_needs_approval_outside_full_auto(
    tmp_path: Path, cli_path: Path
) -> None:
    install(cli_path, "codex")
    root = buggy_folder(tmp_path / "p")
    overrides = ["agents.preferences.default_agent=agent:codex"]
    asked: list[str] = []

    def no(question: str, detail: str) -> bool:
        asked.append(question)
        return False

    result, events, _ = run_in_process(
        root, [delegate_to("agent:codex")], overrides=overrides, confirm=no
    )
    assert asked == [
        f"Allow the agent to run agent:codex ({cli_path / 'codex'}) in the workspace (it edits "
        "files and may run commands)?"
    ]
    assert result.status == "failed" and "the user said no to running agent:codex" in (
        result.message
    )
    assert (root / "main.py").read_text() == BUGGY and not kinds(events, "agent.run.start")


def test_codex_output_is_read_from_its_events() -> None:
    events = [
        {"type": "thread.started", "thread_id": "t"},
        {"type": "error", "message": "stream disconnected; retrying 1/5"},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "first"}},
        {"type": "item.completed", "item": {"type": "agent_message", "text": "Fixed it."}},
        {"type": "turn.completed", "usage": {"input_tokens": 5, "output_tokens": 2}},
    ]
    stdout = "a warning line\n" + "\n".join(json.dumps(e) for e in events)
    parsed = parse_codex(stdout)
    assert (parsed.reply, parsed.error) == ("Fixed it.", None)
    assert parsed.usage == {"input_tokens": 5, "output_tokens": 2}
    failed = parse_codex(json.dumps({"type": "turn.failed", "error": {"message": "quota"}}))
    assert failed.error == "quota"
    old = parse_codex(json.dumps({"id": "0", "msg": {"type": "agent_message", "message": "ok"}}))
    assert old.reply == "ok"


def test_claude_output_is_read_from_its_result() -> None:
    ok = {"type": "result", "subtype": "success", "is_error": False, "result": "Done."}
    assert parse_claude(json.dumps(ok)).reply == "Done."
    bad = {**ok, "subtype": "error_max_turns", "is_error": True, "result": ""}
    assert parse_claude(json.dumps(bad)).error == "error_max_turns"
    assert parse_claude("not json").error == "no result in its output (expected one JSON object)"


@pytest.mark.slow
def test_end_to_end_default_agent_codex(tmp_path: Path, cli_path: Path) -> None:
    """`python -m codur` with agent:codex as the default agent: the stand-in `codex`
    fixes a git project's bug; verified, exit 0."""
    install(cli_path, "codex")
    root = buggy_folder(tmp_path / "proj")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "start"]):
        identity = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run(["git", "-C", str(root), *identity, *args], check=True, timeout=30)
    flags = scripted_profile(tmp_path, [delegate_to("agent:codex")])
    args = ["-o", "agents.preferences.default_agent=agent:codex", "--yes", *flags]
    done = run_cli([*args, "fix @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "main.py").read_text() == FIXED
    assert "agent:codex ended in" in done.stdout and "verified" in done.stdout
