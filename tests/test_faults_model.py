"""Fault injection, the model's side: a server that answers HTML, cut JSON or `{}`,
errors, stalls, trickles or dies mid-run; model replies that used to crash Codur. Each
ends with its documented exit code, an end record and the user's files intact."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fake_servers import Delay, Fail, Hangup, OpenAIServer, Raw, Reply, Trickle
from faults import codur, ended, openai_profile, records, workdir
from helpers import BUGGY, FIXED, WRONG, scripted_profile, whole_file

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

BAD_ANSWERS = {
    "html": Raw(b"<!doctype html><html><body>Welcome</body></html>", content_type="text/html"),
    "cut json": Raw(b'{"id": "x", "choices": [{"index": 0, "message": {"role": "assis'),
    "empty object": Raw(b"{}"),
}


@pytest.mark.parametrize("answer", list(BAD_ANSWERS))
def test_a_malformed_answer_is_exit_3(tmp_path: Path, openai_server, answer: str) -> None:
    openai_server.default = BAD_ANSWERS[answer]
    work = workdir(tmp_path)
    result = codur([*openai_profile(openai_server.base_url), "fix @main.py"], work)
    end = ended(result, work, 3, error=f"profile 'srv' at {openai_server.base_url}")
    assert end["status"] == "error" and (work / "main.py").read_text() == BUGGY
    assert len(openai_server.requests) <= 2  # one retry at most
    assert end["model_calls"] == 1 and end["completion_tokens"] == 0  # what it spent


@pytest.mark.parametrize("fault", ["500", "stall", "trickle"])
def test_a_failing_server_is_bounded_retries_then_exit_3(
    tmp_path: Path, openai_server, fault: str
) -> None:
    openai_server.default = {"500": Fail(500), "stall": Delay(60), "trickle": Trickle(0.2)}[fault]
    work = workdir(tmp_path)
    start = time.monotonic()
    flags = openai_profile(openai_server.base_url, timeout_s=1, max_retries=2)
    result = codur([*flags, "fix @main.py"], work)
    ended(result, work, 3, error="gave up after 3 attempts")
    assert time.monotonic() - start < 30  # 3 attempts of at most 1 s each, and start-up
    assert len(openai_server.requests) == 3 and (work / "main.py").read_text() == BUGGY
    if fault != "500":
        assert "no complete answer within 1 s (timeout_s)" in result.stderr


def test_the_server_dying_mid_run_leaves_complete_files(tmp_path: Path) -> None:
    server = OpenAIServer().start()
    server.script(Reply(whole_file("main.py", WRONG)))
    server.default = Hangup()  # every later request: the connection drops unanswered
    work = workdir(tmp_path)
    try:
        result = codur([*openai_profile(server.base_url), "fix @main.py"], work)
    finally:
        server.stop()
    end = ended(result, work, 3, error="gave up after 2 attempts")
    assert (work / "main.py").read_text() == WRONG  # the applied edit, whole
    assert not list(work.glob(".*.codur-tmp"))
    # no summary follows an error: one line says what the run left changed (a probe's find)
    assert "the run changed 1 file(s) before it stopped, not verified: main.py" in result.stderr
    assert f"codur undo --run {end['run']} puts them back" in result.stderr


def test_a_pre_plan_reply_with_string_args_goes_on_to_the_planner(tmp_path: Path) -> None:
    pre_plan = (
        '{"kind": "file_operation", "confidence": 1.0, '
        '"tool_calls": [{"tool": "read_file", "args": "main.py"}]}'
    )
    plan = '{"action": "respond", "response": "Nothing to do."}'
    work = workdir(tmp_path)
    result = codur([*scripted_profile(tmp_path, [pre_plan, plan]), "tidy up please"], work)
    end = ended(result, work, 0)
    assert end["status"] == "done" and "Nothing to do." in result.stdout


def test_a_scripted_tool_call_without_a_name_is_a_config_error(tmp_path: Path) -> None:
    reply = {"content": "", "tool_calls": [{"args": {"path": "main.py"}}]}
    work = workdir(tmp_path)
    result = codur([*scripted_profile(tmp_path, [reply]), "fix @main.py"], work)
    ended(result, work, 2, error="script item 1: tool call 1 has no name")


def test_control_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    hostile = "\x1b]0;pwned\x07Done\x1b[2J\x1b[31m, all\r fine\x9b1m."
    plan = json.dumps({"action": "respond", "response": hostile})
    work = workdir(tmp_path)
    result = codur([*scripted_profile(tmp_path, ["{}", plan]), "say something"], work)
    ended(result, work, 0)
    assert "Done, all fine." in result.stdout
    assert not any(c in result.stdout + result.stderr for c in "\x1b\x07\r\x9b")


def test_the_printed_diff_is_capped(tmp_path: Path) -> None:
    big = "".join(f"print({n})\n" for n in range(2000))
    work = workdir(tmp_path, {"main.py": big})
    reply = whole_file("main.py", big.replace("print(", "print(1 + "))
    no_test = "No test."  # asked for a test first: nothing in the folder checks the task
    flags = [*scripted_profile(tmp_path, [no_test, reply]), "-o", "display.max_diff_lines=40"]
    flags += ["-o", "display.max_reply_lines=5", "-o", "planning.mode=check"]  # no verifier
    result = codur([*flags, "rewrite @main.py"], work)
    assert result.returncode == 1, result.stdout + result.stderr  # nothing could check it
    assert "... diff cut: 3964 more lines (display.max_diff_lines)" in result.stdout, result.stdout
    assert len(result.stdout.splitlines()) < 60
    assert records(work)[-1]["files_changed"] == ["main.py"]


def test_a_codur_variable_that_is_no_setting_is_a_warning(tmp_path: Path) -> None:
    work = workdir(tmp_path, {"main.py": "print(10)\n", "expected.txt": "10\n"})
    result = codur(["--no-model", "fix @main.py"], work, env={"CODUR_VENV": "/x/.venv"})
    ended(result, work, 0)
    assert result.stderr.strip() == (
        "codur: warning: environment variable CODUR_VENV is not a Codur setting (ignored)"
    )
    assert FIXED  # the shared fixture programs are what the other cases edit
