"""Custom prompts through the real `codur` command (scripted model, real files): a
project's prompts reach the model, a template missing a placeholder stops any command
with exit 2 and one line, and `codur prompts list / show / reset` on a real project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import (
    BUGGY,
    FIXED,
    ROOT,
    WRONG,
    debug_log,
    run_cli,
    scripted_profile,
    whole_file,
    write_files,
)
from test_ask import ANSWER, FINISH, LOOP_FLAGS, PLAN, QUESTION, SEARCH, SUMMARY
from test_code_search import FILES

from codur.config import trust
from codur.promptbook import REGISTRY

PRE_PLAN_UNSURE = json.dumps({"kind": "unclear", "confidence": 0.3})
DELEGATE = json.dumps({"action": "delegate", "route": "edit", "agent": "agent:coder"})
PLANNER = "Custom planner.\nDefault: {default_agent}\nAgents:\n{agents}\n{tools}\n"
CONFIG = """\
# my project's settings
runtime:
  max_iterations: 3   # keep this
prompts:
  planner: prompts/planner.md   # the plain-text one
  check_test: prompts/test.md
"""


def requests(stdout: str) -> list[list[dict[str, Any]]]:
    """The messages of every model request, from `--json` events."""
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    return [e["messages"] for e in lines if e["event"] == "model.request"]


def buggy_project(root: Path, prompts: dict[str, str], files: dict[str, str]) -> Path:
    write_files(root, {"main.py": BUGGY, "expected.txt": "10\n", **files})
    (root / "codur.yaml").write_text(yaml.safe_dump({"prompts": prompts}))
    trust.trust(root / "codur.yaml")  # prompts are a protected key: the user trusted it
    return root


@pytest.mark.slow
def test_a_projects_custom_prompts_reach_the_model(tmp_path: Path) -> None:
    root = buggy_project(
        tmp_path / "w",
        {"planner": "prompts/planner.md", "pre_planner": "prompts/classify.md"},
        {"prompts/planner.md": PLANNER, "prompts/classify.md": 'Classify. {"kind": "..."}'},
    )
    script = [PRE_PLAN_UNSURE, DELEGATE, whole_file("main.py", FIXED)]
    flags = [*scripted_profile(tmp_path, script), "--json", "-o", "log.enabled=false"]
    done = run_cli([*flags, "make the program print the sum of the list"], root)
    assert done.returncode == 0, done.stderr
    pre_plan, plan, coder = requests(done.stdout)
    assert pre_plan[0] == {"role": "system", "content": 'Classify. {"kind": "..."}'}
    system = plan[0]["content"]
    assert system.startswith("Custom planner.\nDefault: agent:coder\nAgents:\n- agent:coder: "), (
        system
    )
    assert "## Available tools" in system and "You are the planner" not in system
    assert coder[0]["content"].startswith("You are an expert programmer")  # not replaced
    assert (root / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_custom_parts_of_the_coders_message_reach_the_model(tmp_path: Path) -> None:
    """Prompts that were once read straight from prompts/ (the failure evidence, the
    check's report, the answer format, the earlier attempts) are replaced from config:
    the model.request events of the debug log carry the custom text."""
    root = buggy_project(
        tmp_path / "w",
        {
            "coder_evidence": "evidence.md",
            "verification_failed": "report.md",
            "edit_whole_file": "format.md",
            "coder_attempts": "attempts.md",
        },
        {
            "evidence.md": "\nCUSTOM EVIDENCE >>>\n{failure}\n",
            "report.md": "CUSTOM REPORT.",  # plain text: its data is appended
            "format.md": "CUSTOM FORMAT: the whole file, after its path.",
            "attempts.md": "\nCUSTOM ATTEMPTS >>>\n{attempts}\n",
        },
    )
    flags = scripted_profile(tmp_path, [whole_file("main.py", WRONG), whole_file("main.py", FIXED)])
    done = run_cli([*flags, "fix @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    log = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    first, second = [
        "\n".join(str(m["content"]) for m in r["messages"])
        for r in log
        if r["event"] == "model.request"
    ]
    assert "CUSTOM EVIDENCE >>>\nCUSTOM REPORT.\n\nProblems:\nRunning `python main.py," in first
    assert "Expected:\n10\n\nActual:\n6" in first
    assert "CUSTOM FORMAT: the whole file, after its path." in first
    assert "This is how the check fails" not in first and "Answer format:" not in first
    assert "CUSTOM ATTEMPTS >>>\n- " in second
    assert "Earlier attempts that did not work" not in second
    assert (root / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_a_custom_ask_prompt_reaches_the_model(tmp_path: Path) -> None:
    root = tmp_path / "w"
    write_files(root, {**FILES, "synth.md": "Answer briefly.\nQ: {question}\nF: {findings}\n"})
    (root / "codur.yaml").write_text("prompts:\n  ask_synthesizer: synth.md\n")
    trust.trust(root / "codur.yaml")
    flags = scripted_profile(tmp_path, [PLAN, SEARCH, SUMMARY, FINISH, ANSWER])
    done = run_cli(["ask", "--json", *flags, *LOOP_FLAGS, QUESTION], root)
    assert done.returncode == 0, done.stderr
    synthesizer = requests(done.stdout)[-1][0]["content"]
    assert synthesizer.startswith(f"Answer briefly.\nQ: {QUESTION}\nF: ### "), synthesizer
    assert "cfg/loader.py:8-12" in synthesizer  # the findings filled its placeholder


@pytest.mark.slow
def test_a_template_missing_a_placeholder_stops_with_exit_2_and_one_line(tmp_path: Path) -> None:
    root = buggy_project(
        tmp_path / "w", {"planner": "planner.md"}, {"planner.md": "Plan. Agents: {agents}\n"}
    )
    flags = scripted_profile(tmp_path, [])  # no model call may happen
    line = (
        f"codur: error: {root / 'codur.yaml'}:2: prompt 'planner' in {root / 'planner.md'}: "
        "missing required placeholders {tools}"
    )
    for args in ([*flags, "fix @main.py"], ["prompts", "show", "planner"], ["prompts", "list"]):
        done = run_cli(args, root)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.strip().splitlines() == [line], args
    assert (root / "main.py").read_text() == BUGGY


@pytest.mark.slow
def test_prompts_list_show_and_reset_on_a_project(tmp_path: Path) -> None:
    root = tmp_path / "w"
    write_files(
        root,
        {
            "codur.yaml": CONFIG,
            "prompts/planner.md": "Plan with care.\n",
            "prompts/test.md": "Test {task} on these files:\n{files}\n",
        },
    )
    trust.trust(root / "codur.yaml")
    listed = run_cli(["prompts", "list"], root)
    assert listed.returncode == 0, listed.stderr
    lines = [line.split() for line in listed.stdout.splitlines()[3:] if line.strip()]
    rows = {words[0]: " ".join(words) for words in lines if words[0] != "│"}  # not wrapped
    assert set(rows) == set(REGISTRY)  # every prompt, one per file in prompts/
    assert len(rows) == len(list((ROOT / "prompts").iterdir()))
    assert "prompts/planner.md" in rows["planner"] and "{agents}, {tools}" in rows["planner"]
    assert "prompts/test.md" in rows["check_test"] and "built-in" in rows["coder"]

    shown = run_cli(["prompts", "show", "planner"], root)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(
        "==> planner: custom prompts/planner.md, plain text: its data is appended <==\n"
        "Plan with care.\n\nAgents:\n- agent:coder: edits files and fixes bugs\n\nTools:\n"
    )
    test = run_cli(["prompts", "show", "check_test"], root).stdout
    assert test.startswith("==> check_test: custom prompts/test.md <==\nTest make total() ")
    everything = run_cli(["prompts", "show"], root).stdout
    assert everything.count("==> ") == len(rows)
    assert "==> coder: built-in prompts/coder_system.md" in everything

    trust.trust(root / "codur.yaml")
    reset = run_cli(["prompts", "reset", "planner"], root)
    assert reset.returncode == 0, reset.stderr
    config = root / "codur.yaml"
    assert reset.stdout.splitlines() == [
        f"removed prompts.planner (prompts/planner.md) from {config}",
        f"{config} stays trusted",
    ]
    assert config.read_text() == CONFIG.replace(
        "  planner: prompts/planner.md   # the plain-text one\n", ""
    )
    assert trust.is_trusted(config)
    assert "built-in" in run_cli(["prompts", "list"], root).stdout.split("planner ", 1)[1]

    again = run_cli(["prompts", "reset", "planner"], root)
    assert (again.returncode, again.stdout.strip()) == (
        0,
        f"no custom prompt for planner to reset in {config}",
    )
    everything = run_cli(["prompts", "reset"], root)
    assert everything.stdout.splitlines() == [
        f"removed prompts.check_test (prompts/test.md) from {config}",
        f"{config} stays trusted",
    ]
    assert (
        config.read_text()
        == "# my project's settings\nruntime:\n  max_iterations: 3   # keep this\n"
    )
    nothing = run_cli(["prompts", "reset"], root)
    assert (nothing.returncode, nothing.stdout.strip()) == (
        0,
        f"no custom prompt to reset in {config}",
    )
    unknown = run_cli(["prompts", "reset", "plannr"], root)
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1
    assert "unknown prompt 'plannr' (known: pre_planner, planner," in unknown.stderr
