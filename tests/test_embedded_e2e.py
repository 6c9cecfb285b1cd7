"""End to end with the real embedded model: `codur "fix @main.py"` on a sample challenge."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, run_cli

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
    records = [json.loads(line) for line in (work / "codur_debug.log").read_text().splitlines()]
    end = records[-1]
    assert end["event"] == "run.end" and end["status"] == "verified"
    assert end["model_calls"] >= 1 and end["completion_tokens"] > 0


def test_the_embedded_model_reads_a_file_with_a_tool_then_edits(tmp_path: Path) -> None:
    """A real tool round trip through constrained decoding: the word is in a file the
    prompt does not show, so the model must call read_file, read the result, then edit."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text('print("hello")\n')
    (work / "word.txt").write_text("pumpernickel\n")
    task = (
        "Use the read_file tool to read word.txt, then change @main.py so that it prints "
        "the word that word.txt contains instead of hello."
    )
    flags = ["-o", "llm.profiles.local.agent_tools=true", "-o", "repair.enabled=false"]
    result = run_cli([task, "--max-iterations", "2", *flags], cwd=work, timeout=900)
    assert result.returncode in (0, 1), result.stdout + result.stderr
    records = [json.loads(line) for line in (work / "codur_debug.log").read_text().splitlines()]
    calls = [r for r in records if r["event"] == "tool.call" and r.get("by") != "verify"]
    assert calls and calls[0]["tool"] == "read_file" and "word.txt" in calls[0]["args"]
    results = [r for r in records if r["event"] == "tool.result" and r.get("by") != "verify"]
    assert results[0]["ok"] and "pumpernickel" in results[0]["output"]
    run = subprocess.run([sys.executable, "main.py"], cwd=work, capture_output=True, text=True)
    assert run.stdout.strip() == "pumpernickel"
