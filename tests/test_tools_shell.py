"""run_command with real shells: output, exit codes, the timeout killing the process group,
the scrubbed environment, and the approval gate."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path

import pytest

from codur.approval import Gate
from codur.config.schema import ToolsConfig
from codur.errors import ApprovalRequired
from codur.tools.registry import invoke


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_output_and_exit_code_from_the_workspace_root(call, tool_ws: Path) -> None:
    (tool_ws / "sub").mkdir()
    (tool_ws / "sub" / "a.txt").write_text("alpha\n")
    result = call("run_command", command="pwd; cat sub/a.txt | tr a-z A-Z; echo oops >&2; exit 3")
    report = result.value
    assert result.ok and report.exit_code == 3 and not report.stopped
    assert report.stdout == f"{tool_ws.resolve()}\nALPHA\n" and report.stderr == "oops\n"
    assert result.output.startswith("$ pwd; cat sub/a.txt")
    assert "[exit code 3, " in result.output and "--- stderr ---\noops" in result.output


def test_a_command_that_succeeds(call) -> None:
    result = call("run_command", command="echo hello")
    assert result.value.exit_code == 0 and result.value.stdout == "hello\n"


def test_timeout_kills_the_whole_process_group(call, tool_ctx, tool_ws: Path) -> None:
    tool_ctx.config = ToolsConfig(command_timeout_s=1)
    command = "sleep 60 & echo $! > bg.pid; echo started; sleep 60"
    start = time.monotonic()
    result = call("run_command", command=command)
    assert time.monotonic() - start < 15
    assert result.value.exit_code is None and result.value.stopped == "stopped after 1 s (timeout)"
    assert "started" in result.value.stdout
    background = int((tool_ws / "bg.pid").read_text())
    deadline = time.monotonic() + 5
    while alive(background) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(background)


def test_the_model_may_shorten_the_timeout_but_not_lengthen_it(call, tool_ctx) -> None:
    tool_ctx.config = ToolsConfig(command_timeout_s=1)
    longer = call("run_command", command="sleep 30", timeout_s=600)
    assert longer.value.stopped == "stopped after 1 s (timeout)"
    tool_ctx.config = ToolsConfig(command_timeout_s=30)
    shorter = call("run_command", command="sleep 30", timeout_s=0.5)
    assert shorter.value.stopped == "stopped after 0.5 s (timeout)"
    assert shorter.duration_s < 10
    bad = call("run_command", command="true", timeout_s=0)
    assert not bad.ok and "timeout_s must be positive" in bad.output
    empty = call("run_command", command="  ")
    assert not empty.ok and "the command is empty" in empty.output


def test_output_flood_is_stopped(call, tool_ctx) -> None:
    tool_ctx.config = ToolsConfig(output_limit_bytes=5_000, command_timeout_s=30)
    result = call("run_command", command="yes xxxxxxxxxx")
    assert result.value.stopped == "stopped: output passed 5000 bytes"
    assert len(result.value.stdout) == 5_000


def test_the_environment_is_scrubbed_of_keys(call, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_PROVIDER_API_KEY", "sk-fake-0123456789abcdef")
    monkeypatch.setenv("HARMLESS_SETTING", "kept")
    result = call("run_command", command="env")
    assert "HARMLESS_SETTING=kept" in result.value.stdout
    assert "FAKE_PROVIDER_API_KEY" not in result.value.stdout
    assert "sk-fake-0123456789abcdef" not in result.value.stdout
    assert os.environ["FAKE_PROVIDER_API_KEY"]  # Codur itself still has it


def test_nobody_to_ask_stops_the_run_before_the_command(tool_ctx, tool_ws: Path) -> None:
    tool_ctx.gate = Gate("auto-edit", ask=None, bus=tool_ctx.bus)
    with pytest.raises(ApprovalRequired, match=r"needs approval to run `touch ran`"):
        invoke("run_command", {"command": "touch ran"}, tool_ctx)
    assert not (tool_ws / "ran").exists()
    needed = [e.data for e in tool_ctx.events if e.kind == "approval.needed"]
    assert needed == [{"action": "run", "what": "run `touch ran`", "mode": "auto-edit"}]


def test_a_no_goes_back_to_the_model_and_a_yes_runs_it(tool_ctx, tool_ws: Path) -> None:
    questions: list[str] = []
    answers = iter([False, True])

    def ask(question: str, detail: str) -> bool:
        questions.append(question)
        return next(answers)

    tool_ctx.gate = Gate("auto-edit", ask=ask, bus=tool_ctx.bus)
    declined = invoke("run_command", {"command": "touch ran"}, tool_ctx)
    assert not declined.ok and "the user declined: run `touch ran`" in declined.output
    assert not (tool_ws / "ran").exists()
    allowed = invoke("run_command", {"command": "touch ran"}, tool_ctx)
    assert allowed.ok and (tool_ws / "ran").exists()
    assert questions == ["Allow the agent to run `touch ran`?"] * 2


def test_a_verifiers_context_still_asks(tool_ctx, tool_ws: Path) -> None:
    """The check runs its own programs without asking; a shell command is never the check."""
    gate = Gate("auto-edit", ask=None, bus=tool_ctx.bus)
    checking = dataclasses.replace(tool_ctx, gate=gate, checking=True)
    with pytest.raises(ApprovalRequired):
        invoke("run_command", {"command": "touch ran"}, checking)
    assert not (tool_ws / "ran").exists()
    (tool_ws / "prog.py").write_text("print('the check')\n")
    assert invoke("run_python_file", {"path": "prog.py"}, checking).ok
