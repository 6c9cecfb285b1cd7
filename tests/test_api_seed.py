"""Seed 004's Python API on real folders with a scripted model: a Result's trace is what
`codur trace` prints for the run, `run_agentic_task` is one Agent run, and the prompts are
read, previewed (as `codur prompts show`), saved to a file and reset from the API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from helpers import BUGGY, FIXED, debug_log, run_cli, whole_file

from codur import Agent, run_agentic_task
from codur.errors import ConfigError, UsageError
from codur.promptbook import PromptError

QUIET = ["repair.enabled=false", "sampling.candidates=0"]
COLUMNS = {"COLUMNS": "120"}
"""The width both the CLI's piped output and `Result.trace()` lay the tree out at."""


def demo(tmp_path: Path) -> tuple[Path, Path]:
    """A folder whose program prints the wrong total, and a script fixing it."""
    root = tmp_path / "demo"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([whole_file("main.py", FIXED)]))
    return root, script


@pytest.mark.slow
def test_a_results_trace_is_what_codur_trace_prints_for_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", COLUMNS["COLUMNS"])
    root, script = demo(tmp_path)
    agent = Agent(root, "scripted/s", script=str(script), overrides=QUIET)
    result = agent.run("fix @main.py")
    assert result.is_verified

    shown = result.trace()
    cli = run_cli(["trace", result.run_id], cwd=root, env=COLUMNS)
    assert cli.returncode == 0, cli.stderr
    assert shown == cli.stdout
    assert result.run_id in shown.splitlines()[0] and "verified" in shown.splitlines()[0]
    assert "model" in shown and "verify" in shown  # its model call and its check
    full = run_cli(["trace", result.run_id, "--full"], cwd=root, env=COLUMNS)
    assert result.trace(full=True) == full.stdout != shown

    agent.display_trace()
    assert capsys.readouterr().out == shown
    with pytest.raises(UsageError, match="has not run yet"):
        Agent(root, "scripted/s", script=str(script)).display_trace()
    unlogged = Agent(root, "scripted/s", script=str(script), overrides=["log.enabled=false"])
    (root / "main.py").write_text(BUGGY)
    with pytest.raises(UsageError, match="no debug log"):
        unlogged.run("fix @main.py").trace()


@pytest.mark.slow
def test_run_agentic_task_is_one_agent_run(tmp_path: Path) -> None:
    root, script = demo(tmp_path)
    result = run_agentic_task(
        "fix @main.py", cwd=root, model="scripted/s", script=str(script), overrides=QUIET
    )
    assert (result.status, result.is_verified, result.files_changed) == (
        "verified",
        True,
        ["main.py"],
    )
    assert (root / "main.py").read_text() == FIXED
    with pytest.raises(ConfigError, match="no such folder"):
        run_agentic_task("fix @main.py", cwd=tmp_path / "missing")


def test_prompts_from_the_api_are_what_codur_prompts_shows(tmp_path: Path) -> None:
    root, _ = demo(tmp_path)
    custom = root / "plan.md"
    custom.write_text("FROM-FILE agents: {agents} tools: {tools}\n")
    settings = root / "custom.yaml"  # the caller's own file: trusted, unlike a codur.yaml
    settings.write_text("prompts:\n  planner: plan.md\n")
    agent = Agent(root, "scripted/s", script="unused.yaml", config=settings)

    assert agent.get_prompt("planner") == custom.read_text()
    cli = run_cli(["prompts", "show", "--config", "custom.yaml"], cwd=root)
    assert cli.returncode == 0, cli.stderr
    assert agent.preview_prompts() + "\n" == cli.stdout
    one = run_cli(["prompts", "show", "verifier", "--config", "custom.yaml"], cwd=root)
    assert agent.preview_prompts(["verifier"]) + "\n" == one.stdout

    saved = agent.save_prompts("notes/../prompts.md")
    assert saved == root / "prompts.md" and saved.read_text() == cli.stdout
    assert not list(root.glob(".prompts.md.*"))  # written whole, nothing left behind

    agent.set_prompt("verifier", agent.get_prompt("verifier") + "\nBE-STRICT\n")
    agent.reset_prompts("planner")
    assert "FROM-FILE" not in agent.get_prompt("planner")  # the built-in one again
    assert agent.get_prompt("verifier").endswith("BE-STRICT\n")
    assert settings.read_text() == "prompts:\n  planner: plan.md\n"  # the file is untouched
    agent.reset_prompts()
    builtin = run_cli(["prompts", "show"], cwd=tmp_path)  # a folder without custom prompts
    assert agent.preview_prompts() + "\n" == builtin.stdout.replace(str(tmp_path), str(root))

    with pytest.raises(PromptError, match="unknown prompt 'nope'"):
        agent.get_prompt("nope")
    with pytest.raises(PromptError, match="unknown prompt 'nope'"):
        agent.preview_prompts(["nope"])
    with pytest.raises(ConfigError, match="a list of prompt names"):
        agent.preview_prompts("planner")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="cannot write"):
        agent.save_prompts(tmp_path / "no" / "such" / "folder.md")


@pytest.mark.slow
def test_the_reset_prompt_is_the_one_a_run_sends(tmp_path: Path) -> None:
    root, script = demo(tmp_path)
    agent = Agent(root, "scripted/s", script=str(script), overrides=QUIET)
    agent.set_prompt("coder", agent.get_prompt("coder") + "\nSAY-PLEASE\n")
    agent.reset_prompts()
    assert agent.run("fix @main.py").is_verified
    requests = [
        json.loads(line)
        for line in debug_log(root).read_text().splitlines()
        if '"model.request"' in line
    ]
    assert requests and all("SAY-PLEASE" not in json.dumps(r["messages"]) for r in requests)
