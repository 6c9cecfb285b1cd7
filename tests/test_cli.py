"""The real `codur` command in a subprocess, with a scripted model and real programs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, ROOT, WRONG, debug_log, run_cli, scripted_profile, whole_file


@pytest.fixture
def challenge(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text(BUGGY)
    (work / "expected.txt").write_text("10\n")
    return work


def log_records(work: Path) -> list[dict]:
    return [json.loads(line) for line in debug_log(work).read_text().splitlines()]


def test_help_is_fast_and_imports_no_langchain(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "codur", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0
    assert "Usage:" in result.stdout and "run" in result.stdout
    imported = [line.split("|")[-1].strip() for line in result.stderr.splitlines()]
    assert not [
        m
        for m in imported
        if m.startswith(
            ("langchain", "langgraph", "openai", "llama_cpp", "onnxruntime", "tokenizers")
        )
    ]


@pytest.mark.slow
def test_options_before_a_command_of_a_group_reach_that_command(tmp_path: Path) -> None:
    """`codur -C DIR memory show` works as `codur -C DIR undo` does (README): options
    before a group (memory, config, prompts) go to the group's command."""
    work = tmp_path / "w"
    work.mkdir()
    added = run_cli(["-C", str(work), "memory", "add", "use pytest style"], cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    shown = run_cli(["-C", str(work), "memory", "show"], cwd=tmp_path)
    assert shown.returncode == 0 and "use pytest style" in shown.stdout
    flags = ["-C", str(work), "-o", "runtime.max_iterations=7"]
    config = run_cli([*flags, "config", "show"], cwd=tmp_path)
    assert "runtime.max_iterations: 7 " in config.stdout, config.stderr


@pytest.mark.slow
def test_a_usage_error_is_one_line_naming_the_help_to_read(tmp_path: Path) -> None:
    for args, message, command in (
        (["undo", "--bogus"], "No such option: --bogus", "codur undo --help"),
        (["config", "show", "--x"], "No such option: --x", "codur config show --help"),
        (["run"], "Missing argument 'task'.", "codur run --help"),
    ):
        done = run_cli(args, tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == f"codur: error: {message} (see {command})"
    group = run_cli(["memory"], tmp_path)  # a group alone: its help, as before
    assert group.returncode == 2 and "Commands" in group.stdout + group.stderr


def test_version_and_profiles(tmp_path: Path) -> None:
    version = run_cli(["version"], cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("codur ")
    profiles = run_cli(["profiles"], cwd=tmp_path, env={"OPENAI_API_KEY": "sk-test-123456"})
    assert profiles.returncode == 0
    assert "*local" in profiles.stdout and "OPENAI_API_KEY (set)" in profiles.stdout
    assert "GROQ_API_KEY (not set)" in profiles.stdout


@pytest.mark.slow
def test_fix_verified_on_retry_with_log_and_diff(challenge: Path, tmp_path: Path) -> None:
    replies = [whole_file("main.py", WRONG), whole_file("main.py", FIXED)]
    flags = scripted_profile(tmp_path, replies)
    secret = "sk-live-abcdef0123456789"
    result = run_cli([*flags, "fix @main.py"], cwd=challenge, env={"OPENAI_API_KEY": secret})
    assert result.returncode == 0, result.stdout + result.stderr
    assert (challenge / "main.py").read_text() == FIXED
    assert "verified" in result.stdout
    assert "-    for i in range(len(xs) - 1):" in result.stdout  # the final diff
    assert "\x1b[" not in result.stdout  # not a terminal: plain output
    records = log_records(challenge)
    kinds = [r["event"] for r in records]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end"
    assert "config" in records[0] and records[0]["config"]["runtime"]["max_iterations"] == 10
    # one agent: planning needs no call; two attempts, the program checked before and after each
    assert kinds.count("model.request") == 2 and kinds.count("verify.run") == 3
    nodes = [r["node"] for r in records if r["event"] == "node.end"]
    assert nodes[:3] == ["textual_pre_plan", "llm_pre_plan", "llm_plan"]
    assert all("duration_s" in r for r in records if r["event"] == "node.end")
    response = next(r for r in records if r["event"] == "model.response")
    assert response["prompt_tokens"] > 0 and response["duration_s"] >= 0
    assert records[-1]["status"] == "verified" and records[-1]["model_calls"] == 2
    # the key in the environment never reaches the log
    assert secret not in debug_log(challenge).read_text()


@pytest.mark.slow
def test_stuck_exit_code(challenge: Path, tmp_path: Path) -> None:
    same_failure = WRONG.replace("range(len(xs) - 2)", "range(0, len(xs) - 2)")
    replies = [whole_file("main.py", WRONG), whole_file("main.py", same_failure)]
    result = run_cli([*scripted_profile(tmp_path, replies), "fix @main.py"], cwd=challenge)
    assert result.returncode == 1
    assert "stuck" in result.stdout
    assert log_records(challenge)[-1]["status"] == "stuck"


@pytest.mark.slow
def test_repair_search_shows_its_fix_and_logs_every_candidate(
    challenge: Path, tmp_path: Path
) -> None:
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG)], repair=True)
    slow = ["-o", "repair.first_budget_s=60"]  # the search before the model, on a busy machine
    result = run_cli([*flags, *slow, "fix @main.py"], cwd=challenge)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "repair search: main.py line 3:" in result.stdout
    assert (challenge / "main.py").read_text() == FIXED
    records = log_records(challenge)
    tried = [r for r in records if r["event"] == "repair.candidate"]
    end = [r for r in records if r["event"] == "repair.end"][0]
    assert len(tried) == end["tried"] > 1 and tried[-1]["passed"] in (True, False)
    assert records[-1]["status"] == "verified" and records[-1]["model_calls"] == 0


@pytest.mark.slow
def test_llm_call_limit(challenge: Path, tmp_path: Path) -> None:
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG), whole_file("main.py", BUGGY)])
    result = run_cli([*flags, "--max-llm-calls", "1", "fix @main.py"], cwd=challenge)
    assert result.returncode == 1
    assert "LLM call limit reached (1 calls)" in result.stdout
    assert log_records(challenge)[-1]["status"] == "limit"


@pytest.mark.slow
def test_json_mode_streams_events_on_stdout(challenge: Path, tmp_path: Path) -> None:
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    result = run_cli([*flags, "--json", "fix @main.py"], cwd=challenge)
    assert result.returncode == 0
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["event"] == "run.start" and events[-1]["event"] == "run.end"
    assert "verified" in result.stderr  # human output moved to stderr


@pytest.mark.slow
def test_json_mode_ends_with_an_end_record_whatever_stops_the_run(challenge: Path) -> None:
    """--json: a run or a question stopped by its command line (an unknown profile, a bad
    value) ends its stdout with one end record, as one stopped inside does (a missing
    @file); other commands' JSON is their own."""
    stopped = [
        (["-m", "nosuch", "--no-model", "fix @main.py"], "run.end", "unknown LLM profile"),
        (["--max-iterations", "-1", "fix @main.py"], "run.end", "--max-iterations: key"),
        (["--no-model", "fix @nothere.py"], "run.end", "@nothere.py: no such file"),
        (["ask", "-m", "nosuch", "what is it?"], "ask.end", "unknown LLM profile"),
    ]
    for args, kind, said in stopped:
        result = run_cli(["--json", *args], cwd=challenge)
        assert result.returncode == 2, result.stdout + result.stderr
        ends = [json.loads(line) for line in result.stdout.splitlines() if '.end"' in line]
        assert len(ends) == 1 and ends[0]["event"] == kind, result.stdout
        assert ends[0]["status"] == "error" and ends[0]["exit_code"] == 2
        assert said in ends[0]["error"]
    listed = run_cli(["undo", "--json"], cwd=challenge)
    assert listed.returncode == 2 and listed.stdout == ""
    codur = f"{sys.executable} -m codur --json -m nosuch 'fix @main.py'"
    for shell in (f"{codur} >&-", f"{codur} | true"):  # no stdout, or nobody reading it
        closed = subprocess.run(["bash", "-c", f"{shell}; exit ${{PIPESTATUS[0]}}"],
                                cwd=challenge, capture_output=True, text=True)  # fmt: skip
        assert closed.returncode == 2 and "Traceback" not in closed.stderr, closed.stderr


@pytest.mark.slow
def test_missing_reference_and_unreachable_model(challenge: Path) -> None:
    missing = run_cli(["fix @nothere.py"], cwd=challenge)
    assert missing.returncode == 2 and "@nothere.py: no such file" in missing.stderr
    for ref in ("~/.bashrc", "."):  # outside the folder / not a file: said, not ignored
        refused = run_cli(["--no-model", f"fix @{ref}"], cwd=challenge)
        assert refused.returncode == 2 and f"codur: error: @{ref}: " in refused.stderr
    for command, what in ((["  "], "task"), (["ask", ""], "question")):
        empty = run_cli([*scripted_profile(challenge, []), *command], cwd=challenge)
        assert (empty.returncode, empty.stderr) == (2, f"codur: error: the {what} is empty\n")
    flags = [
        "-o",
        "llm.profiles.dead.provider=openai",
        "-o",
        "llm.profiles.dead.base_url=http://127.0.0.1:9/v1",
        "-o",
        "llm.profiles.dead.max_retries=0",
        "-o",
        "repair.enabled=false",  # else the repair search fixes it before any model call
        "--profile",
        "dead",
    ]
    dead = run_cli([*flags, "fix @main.py"], cwd=challenge)
    assert dead.returncode == 3, dead.stderr
    assert "profile 'dead' at http://127.0.0.1:9/v1" in dead.stderr
    assert "Traceback" not in dead.stderr
    assert log_records(challenge)[-1]["status"] == "error"


@pytest.mark.slow
def test_ctrl_c_exits_130_and_stops_the_program(challenge: Path, tmp_path: Path) -> None:
    slow = "import time\n" + FIXED.replace("    s = 0\n", "    s = 0\n    time.sleep(60)\n")
    flags = scripted_profile(tmp_path, [whole_file("main.py", slow)])
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "codur", *flags, "fix @main.py"],
        cwd=challenge,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = debug_log(challenge)
        if log.exists() and '"file.write"' in log.read_text():
            break
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert log_records(challenge)[-1]["status"] == "interrupted"


@pytest.mark.slow
def test_phase_0_file_operation_and_refused_delete(challenge: Path) -> None:
    read = run_cli(["read main.py"], cwd=challenge)
    assert read.returncode == 0 and "range(len(xs) - 1)" in read.stdout
    assert "model calls: 0" in read.stdout
    refused = run_cli(["delete main.py"], cwd=challenge)  # no terminal to ask, no --yes
    assert refused.returncode == 5 and (challenge / "main.py").exists()
    assert "approval: needs approval to delete main.py (approval mode auto-edit" in refused.stdout
    end = log_records(challenge)[-1]
    assert end["event"] == "run.end" and end["status"] == "approval" and end["exit_code"] == 5
    allowed = run_cli(["delete main.py", "--yes"], cwd=challenge)
    assert allowed.returncode == 0 and not (challenge / "main.py").exists()
