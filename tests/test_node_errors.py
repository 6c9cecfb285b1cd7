"""An exception in a node: recorded in working memory, retried at most
MAX_NODE_RETRIES times with the error in the model's context, then a readable end
(status error, one line, exit code 4). The scripted model's `{error: ...}` item raises
an exception no provider classifies, as a client library's unexpected error would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    BUGGY,
    FIXED,
    buggy_folder,
    debug_log,
    run_cli,
    run_in_process,
    scripted_profile,
    whole_file,
)

from codur.errors import ModelError
from codur.graph.on_error import MAX_NODE_RETRIES
from codur.graph.state import NodeFailure

PRE_PLAN = json.dumps({"kind": "unclear", "confidence": 0.4})
BOOM = {"error": "the client library choked on the reply"}
LINE = "ScriptedFailure: the client library choked on the reply"
NOTE = f"An earlier try of this step failed with an error: {LINE}"


def test_a_failing_agent_call_is_retried_with_the_error_in_its_prompt(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    result, events, _ = run_in_process(root, [BOOM, whole_file("main.py", FIXED)])
    assert result.status == "verified", result.message
    assert (root / "main.py").read_text() == FIXED
    errors = [e.data for e in events if e.kind == "node.error"]
    assert [(e["node"], e["count"], e["decision"]) for e in errors] == [("execute", 1, "retry")]
    assert errors[0]["error"] == LINE and "Traceback" in errors[0]["traceback"]
    first, second = [e.data["messages"] for e in events if e.kind == "model.request"]
    assert NOTE not in first[-1]["content"] and NOTE in second[-1]["content"]
    started = [e.data["node"] for e in events if e.kind == "node.start"]
    assert started.count("prepare") == 2 and started.count("verify") == 2


def test_retries_are_bounded_then_a_readable_end(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    replies = [PRE_PLAN, *[BOOM] * (MAX_NODE_RETRIES + 1)]
    result, events, session = run_in_process(root, replies, task="tidy up the project")
    assert result.status == "error" and int(result.exit_code) == 4
    assert result.message == f"the llm_plan step failed 4 times; the last error: {LINE}"
    errors = [e.data for e in events if e.kind == "node.error"]
    assert [e["decision"] for e in errors] == ["retry", "retry", "retry", "end"]
    assert [e["count"] for e in errors] == [1, 2, 3, 4]
    plans = [e.data["messages"] for e in events if e.kind == "model.request"][1:]
    assert [NOTE in m[-1]["content"] for m in plans] == [False, True, True, True]
    assert result.model_calls == 5 and (root / "main.py").read_text() == BUGGY

    fewer = ["runtime.max_node_retries=1"]  # the cap is the user's
    result, events, _ = run_in_process(root, [PRE_PLAN, BOOM, BOOM], "tidy up", fewer)
    assert result.message == f"the llm_plan step failed 2 times; the last error: {LINE}"
    assert [e.data["decision"] for e in events if e.kind == "node.error"] == ["retry", "end"]


def test_working_memory_holds_the_last_error(tmp_path: Path) -> None:
    from codur.config import load_config
    from codur.events import EventBus
    from codur.graph.build import build_graph
    from codur.session import Session
    from codur.workspace import Workspace

    root = buggy_folder(tmp_path / "work")
    script = tmp_path / "script.yaml"
    script.write_text(json.dumps([PRE_PLAN, BOOM, BOOM, BOOM, BOOM]))
    flags = ["llm.profiles.s.provider=scripted", f"llm.profiles.s.script={script}"]
    config = load_config(root, overrides=[*flags, "llm.default_profile=s"], environ={}).config
    session = Session(config, Workspace(root), EventBus())
    state = build_graph().invoke({"task": "tidy up", "iterations": 0}, context=session)
    assert state["error_count"] == 4 and state["status"] == "error"
    assert state["last_error"] == NodeFailure("llm_plan", LINE, 4)


def test_a_typed_error_is_not_retried(tmp_path: Path) -> None:
    """A typed error (here the script running out: a fatal model error) keeps its own
    ending and exit code: no retry."""
    root = buggy_folder(tmp_path / "work")
    with pytest.raises(ModelError, match="no responses left"):
        run_in_process(root, [PRE_PLAN], task="tidy up the project")


@pytest.mark.slow
def test_the_cli_ends_with_exit_code_4_and_one_line(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "work")
    flags = scripted_profile(tmp_path, [PRE_PLAN, *[BOOM] * 4])
    done = run_cli([*flags, "--json", "tidy up the project"], root)
    assert done.returncode == 4, done.stderr
    assert "Traceback" not in done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    end = events[-1]
    assert end["event"] == "run.end" and end["status"] == "error" and end["exit_code"] == 4
    assert end["message"] == f"the llm_plan step failed 4 times; the last error: {LINE}"
    logged = debug_log(root).read_text()
    assert logged.count('"node.error"') == 4 and "Traceback" in logged


def test_a_limit_is_an_ending_recorded_without_a_traceback(tmp_path: Path) -> None:
    """`--max-llm-calls` reached: node.error names the limit in one line and carries no
    traceback (with -v a limit printed a Python traceback; docs/cli.md: never one)."""
    from helpers import buggy_folder, run_in_process, whole_file

    root = buggy_folder(tmp_path / "w")
    replies = [whole_file("main.py", "print(1)\n")] * 3
    result, events, _ = run_in_process(root, replies, overrides=["runtime.max_llm_calls=1"])
    assert result.status == "limit"
    errors = [e.data for e in events if e.kind == "node.error"]
    assert errors and all("traceback" not in e for e in errors), errors
    assert errors[0]["error"].startswith("LimitReached: LLM call limit reached")
