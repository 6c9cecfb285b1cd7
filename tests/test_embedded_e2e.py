"""End to end with the real embedded model: `codur "fix @main.py"` on a sample challenge."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, debug_log, run_cli

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="the embedded model needs the `local` extra (llama-cpp-python)",
    ),
]


def copy_challenge(name: str, dest: Path) -> tuple[Path, str]:
    """A working copy of challenges/NAME as the agent sees it (no solution, no metadata)."""
    work = dest / name
    shutil.copytree(
        ROOT / "challenges" / name,
        work,
        ignore=shutil.ignore_patterns("solution", "challenge.yaml"),
    )
    return work, (work / "prompt.txt").read_text().strip()


def test_fixes_a_sample_challenge_with_the_embedded_model(tmp_path: Path) -> None:
    work, task = copy_challenge("off_by_one_sum", tmp_path)
    # the repair search would fix this one without a model: here the model has to
    result = run_cli(
        [task, "--max-iterations", "6", "-o", "repair.enabled=false"], cwd=work, timeout=900
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # judged independently of the agent: run the program and compare with expected.txt
    run = subprocess.run([sys.executable, "main.py"], cwd=work, capture_output=True, text=True)
    assert run.stdout == (work / "expected.txt").read_text()
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    end = records[-1]
    assert end["event"] == "run.end" and end["status"] == "verified"
    assert end["model_calls"] >= 1 and end["completion_tokens"] > 0


def test_the_embedded_model_calls_a_tool_in_the_agent_loop(tmp_path: Path) -> None:
    """A real tool round trip through constrained decoding, in the coder's agent loop:
    the word is in a file the prompt does not show, so the model must call read_file
    (its reply forced into one JSON action), read the result, then answer with it."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    from codur.agents.loop import run_loop
    from codur.agents.turn import Turn
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.tools.offered import langchain_tools
    from codur.tools.registry import TaskType
    from codur.workspace import Workspace

    (tmp_path / "word.txt").write_text("pumpernickel\n")
    config = load_config(tmp_path, overrides=["llm.profiles.local.n_ctx=4096"], environ={})
    session = Session(config.config, Workspace(tmp_path), EventBus())
    tools = [t for t in langchain_tools([TaskType.FILE_OPERATION]) if t.name == "read_file"]
    ask = "Use the read_file tool to read word.txt, then tell me the word it contains."
    turn = Turn(
        profile="local",
        prompt=(SystemMessage("You are a helpful assistant."), HumanMessage(ask)),
        names=("read_file",),
        bound=tuple(tools),
        budget=128,
        max_rounds=2,
    )
    turns = run_loop(turn, session)
    call = turns[0]
    assert isinstance(call, AIMessage) and call.tool_calls[0]["name"] == "read_file"
    assert call.tool_calls[0]["args"]["path"] == "word.txt"
    result = turns[1]
    assert isinstance(result, ToolMessage) and result.status == "success"
    assert "pumpernickel" in str(result.content)
    final = turns[-1]
    assert isinstance(final, AIMessage) and not final.tool_calls
    assert "pumpernickel" in str(final.content).lower()
