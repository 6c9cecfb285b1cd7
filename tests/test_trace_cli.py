"""`codur trace` on the log of a real run: a `python -m codur` process with a scripted
model that reads a file, calls a tool of a real MCP server (tests/mcp_server.py), then
fixes the bug; the trace is drawn by another real process (tree, --full, --json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import (
    FIXED,
    buggy_folder,
    debug_log,
    run_cli,
    scripted_profile,
    tool_calls,
    whole_file,
)

SERVER = Path(__file__).with_name("mcp_server.py")


@pytest.fixture(scope="module")
def traced_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A verified run in a fresh folder: (the folder, its debug log's records)."""
    tmp = tmp_path_factory.mktemp("trace")
    root = buggy_folder(tmp / "work")
    config = tmp / "mcp.yaml"
    servers = {"test": {"command": sys.executable, "args": [str(SERVER)]}}
    tools = ["file_operation", "search", "code_validation", "mcp"]  # the coder may call MCP
    agents = {"configs": {"coder": {"type": "llm", "tools": tools}}}
    config.write_text(yaml.safe_dump({"mcp_servers": servers, "agents": agents}))
    replies = [
        tool_calls(
            ("read_file", {"path": "main.py"}),
            ("call_mcp_tool", {"server": "test", "tool_name": "echo", "arguments": {"text": "hi"}}),
        ),
        whole_file("main.py", FIXED),
    ]
    flags = [*scripted_profile(tmp, replies), "--config", str(config), "--yes"]
    done = run_cli([*flags, "fix @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    log = debug_log(root).read_text().splitlines()
    return root, [json.loads(line) for line in log]


@pytest.mark.slow
def test_the_tree_shows_nodes_model_calls_tools_and_the_verdict(traced_run) -> None:
    root, records = traced_run
    done = run_cli(["trace"], root)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    run_id = records[0]["run"]
    assert out.splitlines()[0] == f"run {run_id}  verified  exit code 0"
    assert "task: fix @main.py" in out
    # the graph's nodes in order, the execute step's agent <-> tools loop inside it
    order = ["textual_pre_plan", "llm_plan", "delegate", "verify", "review"]
    order += ["execute (agent <-> tools)", "prepare", "agent round 0", "tools round 0"]
    order += ["agent round 1", "finish", "verify", "review"]
    at = 0
    for name in order:
        at = out.index(f"── {name}", at)  # each after the one before (ValueError if not)
    # every model call with its tokens, as the log has them
    replies = [r for r in records if r["event"] == "model.response"]
    assert len(replies) == 2
    for reply in replies:
        tokens = f"{reply['prompt_tokens']}+{reply['completion_tokens']} tokens"
        assert f"model s #{reply['call']}  {tokens}" in out
    assert "-> tool calls: read_file, call_mcp_tool" in out
    # tool calls: Codur's own and the MCP server's, with their results on one line
    assert '[built-in] read_file {"path": "main.py"}' in out
    assert '[MCP] test/echo {"text": "hi"}' in out and "-> hi" in out
    # the verification: what it rests on, the first differing line, the final pass
    assert "verification failed (output)" in out
    assert "first difference: output line 1 is '6', expected '10'" in out
    assert "verification passed (output)" in out
    assert "rests on: python main.py, compared with expected.txt" in out
    assert "edit scope: targets main.py" in out
    assert "print(total([1, 2, 3, 4]))" not in out  # read_file's result and replies: cut


@pytest.mark.slow
def test_full_shows_prompts_arguments_and_results_whole(traced_run) -> None:
    root, records = traced_run
    full = run_cli(["trace", "--full"], root)
    assert full.returncode == 0, full.stderr
    prompt = next(r for r in records if r["event"] == "model.request")["messages"][-1]["content"]
    assert prompt.splitlines()[-1] in full.stdout  # the prompt's last line, as sent
    assert "human: " in full.stdout and "system: " in full.stdout
    assert '"text": "hi"' in full.stdout  # the MCP call's arguments, pretty-printed
    assert "result: def total(xs):" in full.stdout  # read_file's result, whole
    assert "    for i in range(len(xs) - 1):" in full.stdout
    assert "print(total([1, 2, 3, 4]))" in full.stdout
    assert "sandbox confine=" in full.stdout  # housekeeping events too
    assert "interpreter path=" in full.stdout
    short = run_cli(["trace"], root).stdout
    assert "sandbox confine=" not in short and "system: " not in short
    assert "interpreter path=" not in short  # the project's Python: housekeeping


def test_json_prints_the_tree(traced_run) -> None:
    root, records = traced_run
    done = run_cli(["trace", "--json"], root)
    assert done.returncode == 0, done.stderr
    tree = json.loads(done.stdout)
    assert tree["kind"] == "run" and tree["name"] == records[0]["run"]
    assert tree["status"] == "verified" and tree["model_calls"] == 2
    assert tree["log"] == str(debug_log(root))

    def walk(item: dict[str, Any]):
        yield item
        for child in item["children"]:
            yield from walk(child)

    items = list(walk(tree))
    group = next(i for i in items if i["kind"] == "group")
    assert group["name"] == "execute"
    assert [c["name"] for c in group["children"]] == [
        "prepare",
        "agent",
        "tools",
        "agent",
        "finish",
    ]
    tools = {i["name"]: i for i in items if i["kind"] == "tool" and i.get("by") != "verify"}
    assert tools["call_mcp_tool"]["origin"] == "mcp" and tools["call_mcp_tool"]["output"] == "hi"
    assert tools["read_file"]["origin"] == "builtin"
    models = [i for i in items if i["kind"] == "model"]
    assert [m["prompt_tokens"] for m in models] == [
        r["prompt_tokens"] for r in records if r["event"] == "model.response"
    ]


@pytest.mark.slow
def test_a_run_by_id_and_a_log_file_by_path(traced_run, tmp_path: Path) -> None:
    root, records = traced_run
    run_id = records[0]["run"]
    log = debug_log(root)
    for ref in (run_id, run_id[:10], run_id[-6:]):  # the id, its start, its end
        done = run_cli(["trace", ref], root)
        assert done.returncode == 0 and done.stdout.startswith(f"run {run_id}"), done.stderr
    by_path = run_cli(["trace", str(log), "--run", run_id[-6:]], tmp_path)
    assert by_path.returncode == 0 and by_path.stdout.startswith(f"run {run_id}")
    from_elsewhere = run_cli(["-C", str(root), "trace"], tmp_path)
    assert from_elsewhere.stdout.startswith(f"run {run_id}")


@pytest.mark.slow
def test_the_ask_graph_sits_inside_explain(tmp_path: Path) -> None:
    """`codur "explain @main.py"`: the explain node holds the ask graph's nodes, their
    model calls and the executor's tool call."""
    root = buggy_folder(tmp_path / "work")
    replies = [
        json.dumps(["Read main.py"]),
        tool_calls(("read_file", {"path": "main.py"})),
        "total() in main.py:3 loops over range(len(xs) - 1).",
        json.dumps({"decision": "FINISH", "reason": "found"}),
        "`total` stops one element short (`main.py:3`).",
    ]
    research = ["-o", "ask.direct_answer=false"]  # the replies script the research loop
    done = run_cli([*scripted_profile(tmp_path, replies), *research, "explain @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    tree = json.loads(run_cli(["trace", "--json"], root).stdout)
    explain = next(c for c in tree["children"] if c["name"] == "explain")
    inside = [c["name"] for c in explain["children"]]
    assert inside == ["retrieve", "planner", "setup_executor", "executor_llm", "tool_node",
                      "executor_llm", "aggregate", "refinery", "synthesizer"]  # fmt: skip
    tool_node = explain["children"][4]
    assert [(c["kind"], c["name"]) for c in tool_node["children"]] == [("tool", "read_file")]
    out = run_cli(["trace"], root).stdout
    reply = next(line for line in out.splitlines() if line.startswith("├── reply: "))
    assert "stops one element short" in reply  # the answer (its citations grounded)
    assert "    ├── executor_llm [ask graph] iteration 1" in out  # one level under explain
