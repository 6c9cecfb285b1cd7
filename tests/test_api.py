"""The Python API (`from codur import Agent`): docs/api.md's examples executed, and the
Agent's arguments, Result, prompts and errors on real folders with a scripted model."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path, PurePosixPath

import pytest
import yaml
from helpers import BUGGY, FIXED, ROOT, debug_log, whole_file

from codur import Agent
from codur.errors import CodurError, ConfigError, ExitCode, UsageError

PRE_PLAN = json.dumps({"kind": "unclear", "confidence": 0.3})
PLAN = json.dumps({"action": "delegate", "agent": "agent:coder", "reasoning": "a code fix"})
QUIET = ["repair.enabled=false", "sampling.candidates=0"]
TASK = "make the program print the sum of the list"
"""A task naming no file with @: the planner is asked (pre-plan, plan, then the coder)."""


def script(tmp_path: Path, replies: list) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text(yaml.safe_dump(replies))
    return path


def folder(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    return root


@pytest.mark.slow
def test_the_docs_examples_run_and_print_what_the_docs_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", docs, re.S)
    printed = re.findall(r"prints\n\n```\n(.*?)```", docs, re.S)
    path = script(tmp_path, [whole_file("main.py", FIXED)])  # "fix @main.py": no planning
    scripted = f'model="scripted/demo", script={str(path)!r}'
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    for block in blocks:
        exec(block.replace('model="llm:local"', scripted), scope)
    assert capsys.readouterr().out == "".join(printed)
    assert (tmp_path / "demo" / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_result_fields_and_a_run_without_planning(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root = folder(tmp_path)
    path = script(tmp_path, [PRE_PLAN, PLAN, whole_file("main.py", FIXED)])
    agent = Agent(cwd=root, model="scripted/s", script=str(path), overrides=QUIET)
    result = agent.run(TASK)
    assert (result.status, result.is_verified, result.exit_code) == ("verified", True, 0)
    assert result.files_changed == ["main.py"] and "range(len(xs))" in result.diff
    assert result.usage.model_calls == 3 and result.usage.prompt_tokens > 0
    assert result.plan_iteration == 0 and result["status"] == "verified"  # a check: no plan
    assert result.messages and result.messages[0].content == TASK
    assert capfd.readouterr() == ("", "")  # nothing printed, not even a warning
    log = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    assert log[0]["event"] == "run.start" and log[-1]["event"] == "run.end"  # for codur trace

    (root / "main.py").write_text(BUGGY)
    direct = script(tmp_path, [whole_file("main.py", FIXED)])  # the coder's reply only
    bare = Agent(root, "scripted/s", enable_planning=False, script=str(direct), overrides=QUIET)
    result = bare.run(TASK)
    assert result.is_verified and result.usage.model_calls == 1


def test_the_config_decides_what_the_agent_is_not_given(tmp_path: Path) -> None:
    """Agent(config=..., overrides=...) layer as `codur -o` does: the API's own defaults
    (recursion_limit=50, enable_planning=True) always won over them (a docs probe)."""
    root = folder(tmp_path)
    extra = tmp_path / "extra.yaml"
    extra.write_text("runtime:\n  recursion_limit: 400\nplanning:\n  enabled: false\n")
    settings = lambda agent: (  # noqa: E731
        agent.loaded.config.runtime.recursion_limit,
        agent.loaded.config.planning.enabled,
    )
    assert settings(Agent(root)) == (300, True)  # the configured defaults, as the CLI's
    assert settings(Agent(root, config=extra)) == (400, False)
    overrides = ["runtime.recursion_limit=120", "planning.enabled=false"]
    assert settings(Agent(root, overrides=overrides)) == (120, False)
    given = Agent(root, config=extra, recursion_limit=60, enable_planning=True)
    assert settings(given) == (60, True)  # an argument given is a flag: it wins


def test_a_custom_prompt_reaches_the_model_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    from codur.promptbook import PromptError

    root = folder(tmp_path)
    path = script(tmp_path, [PRE_PLAN, PLAN, whole_file("main.py", FIXED)])
    agent = Agent(cwd=root, model="scripted/s", script=str(path), overrides=QUIET)
    with pytest.raises(PromptError, match=r"missing required placeholders \{tools\}"):
        agent.set_prompt("planner", "Be brief. {agents}")
    agent.set_prompt("planner", "PLAN-BRIEFLY agents: {agents} tools: {tools}")
    assert agent.run(TASK).is_verified
    requests = [
        json.loads(line)
        for line in debug_log(root).read_text().splitlines()
        if '"model.request"' in line
    ]
    assert len(requests) == 3  # pre-plan, plan, coder
    assert requests[1]["messages"][0]["content"].startswith("PLAN-BRIEFLY agents: ")


@pytest.mark.slow
def test_arun_and_bad_arguments(tmp_path: Path) -> None:
    root = folder(tmp_path)
    path = script(tmp_path, [whole_file("main.py", FIXED)])
    agent = Agent(cwd=root, model="scripted/s", script=str(path), overrides=QUIET)

    async def two_things() -> tuple[str, str]:
        run = asyncio.create_task(agent.arun("fix @main.py"))
        await asyncio.sleep(0)  # the loop goes on while the run works in its thread
        return "the loop went on", (await run).status

    assert asyncio.run(two_things()) == ("the loop went on", "verified")
    assert (root / "main.py").read_text() == FIXED

    with pytest.raises(ConfigError, match="no such folder"):
        Agent(cwd=tmp_path / "missing")
    with pytest.raises(ConfigError, match="needs model='provider/model'"):
        Agent(cwd=root, temperature=0.1)
    with pytest.raises(ConfigError, match="unknown_field"):
        Agent(cwd=root, model="openai/gpt", unknown_field=1)
    with pytest.raises(ConfigError, match="no_such_profile"):
        Agent(cwd=root, model="llm:no_such_profile").run("fix @main.py")
    tools = Agent(cwd=root, model="scripted/s", script=str(path), tools=["no_such_tool"])
    with pytest.raises(ConfigError, match="unknown tool no_such_tool"):
        tools.run("fix @main.py")


def test_a_missing_file_named_with_at_raises_the_documented_usage_error(tmp_path: Path) -> None:
    """docs/api.md ("Errors"): a file the task names with @ that is missing raises
    UsageError (exit code 2) from run and arun, before any model call or edit; the run's
    record in the debug log ends with the error."""
    docs = (ROOT / "docs" / "api.md").read_text()
    documented = (
        "| `UsageError` (exit 2) | `run`, `arun` | a file the task names with `@` is missing"
    )
    assert documented in docs
    root = folder(tmp_path)
    path = script(tmp_path, [whole_file("main.py", FIXED)])
    agent = Agent(cwd=root, model="scripted/s", script=str(path), overrides=QUIET)
    with pytest.raises(UsageError) as raised:
        agent.run("fix @missing.py")
    assert str(raised.value) == f"@missing.py: no such file in {root}"
    assert raised.value.exit_code == ExitCode.USAGE and isinstance(raised.value, CodurError)
    with pytest.raises(UsageError, match="no such file"):
        asyncio.run(agent.arun("fix @missing.py"))
    assert (root / "main.py").read_text() == BUGGY  # nothing was edited
    log = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    assert not [r for r in log if r["event"] == "model.request"]
    end = log[-1]
    assert end["event"] == "run.end" and end["status"] == "error" and end["exit_code"] == 2


def test_a_tool_the_agent_was_not_given_is_refused_not_run(tmp_path: Path) -> None:
    """tools=["read_file"]: a call to write_file is answered with an error the model
    reads (which tools it has), and nothing is written."""
    from helpers import tool_calls

    root = folder(tmp_path)
    replies = [
        tool_calls(("write_file", {"path": "other.py", "content": "x = 1\n"})),
        whole_file("main.py", FIXED),
    ]
    path = script(tmp_path, replies)
    overrides = [*QUIET, "planning.mode=check"]
    agent = Agent(root, "scripted/s", tools=["read_file"], script=str(path), overrides=overrides)
    result = agent.run("fix @main.py")
    assert result.is_verified and not (root / "other.py").exists()
    refused = [m for m in result.messages if getattr(m, "name", "") == "write_file"]
    assert refused and "not one of your tools (you may call: read_file)" in refused[0].content


def test_arguments_of_the_wrong_kind_and_empty_tasks_are_one_line_errors(tmp_path: Path) -> None:
    """docs/api.md: bad arguments raise ConfigError when the Agent is made, whatever
    their kind (a string for `tools` is not read as a list of letters); a task that is no
    text, or empty, raises UsageError before anything runs: no model call, no record."""
    root = folder(tmp_path)
    for bad in (
        {"cwd": 3},
        {"model": 3},
        {"model": "openai/"},
        {"tools": "read_file"},
        {"overrides": "runtime.max_iterations=2"},
        {"tools": 5},  # a probe's: TypeError, AttributeError before
        {"overrides": 5},
        {"overrides": [1]},
        {"config": 5},
        {"model": "openai/x", "provider": "local"},  # the provider is model's
    ):
        with pytest.raises(ConfigError) as raised:
            Agent(**{"cwd": root, **bad})
        assert str(raised.value).startswith("Agent(")
    agent = Agent(cwd=root, model="scripted/s", script=str(script(tmp_path, [])), overrides=QUIET)
    with pytest.raises(ConfigError):
        agent.set_prompt("planner", 5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        agent.preview_prompts(5)  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        agent.save_prompts(5)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="a folder"):
        agent.save_prompts(tmp_path)
    assert "planner" in agent.preview_prompts({"planner"})  # any collection of names
    assert agent.save_prompts(PurePosixPath("prompts.txt")).is_file()  # any os.PathLike
    for task in (None, 3, "", "  \n "):
        with pytest.raises(UsageError, match="task"):
            agent.run(task)  # type: ignore[arg-type] - the misuse under test
    assert not debug_log(root).exists()
