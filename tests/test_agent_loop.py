"""The agent loop (agent <-> tools, the execute step's subgraph) with a scripted model,
real files and real tools: failing tools go back to the model as error results and the
loop goes on; the round limit ends it with a clear note; the router is pure."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import BUGGY, FIXED, run_in_process, tool_calls, whole_file
from langchain_core.messages import AIMessage, ToolMessage

from codur.agents.loop import model_view
from codur.agents.loop_routes import after_tools, completion, hit_cap, route
from codur.agents.turn import Turn
from codur.graph.build import build_graph
from codur.tools.context import Ctx
from codur.tools.registry import TaskType, all_tools, register_tool

ONE_AGENT: list[str] = []  # one agent: no planning call, the first reply is the coder's


def model_side(events: list[Any], kind: str) -> list[dict[str, Any]]:
    """Events of `kind` from the model's side (not the checks verification runs)."""
    return [e.data for e in events if e.kind == kind and e.data.get("by") != "verify"]


def folder(root: Path) -> Path:
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    return root


@pytest.fixture
def exploding_tool() -> Iterator[str]:
    """A registered tool with a bug: it raises something no tool should."""
    all_tools()  # the real tools first, so the name below is the only addition

    @register_tool(TaskType.FILE_OPERATION)
    def explode(ctx: Ctx, path: str) -> str:
        """Read a file the hard way.

        Args:
            path: File path, relative to the workspace root.
        """
        raise ZeroDivisionError(f"cannot read {path}")

    yield "explode"
    del all_tools()["explode"]


def test_failing_tools_go_back_to_the_model_and_the_loop_goes_on(
    tmp_path: Path, exploding_tool: str
) -> None:
    root = folder(tmp_path / "work")
    failing = tool_calls(
        ("read_file", {"path": "missing.py"}),  # a tool error
        ("read_file", {"path": "../outside.py"}),  # a refused path
        (exploding_tool, {"path": "main.py"}),  # an exception in a tool
    )
    reading = tool_calls(("read_file", {"path": "expected.txt"}))
    replies = [failing, reading, whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(root, replies, overrides=ONE_AGENT)
    assert result.status == "verified", result.message
    assert (root / "main.py").read_text() == FIXED
    outcomes = [(d["tool"], d["ok"]) for d in model_side(events, "tool.result")]
    assert outcomes == [("read_file", False), ("read_file", False), ("read_file", True)]
    assert [e.data["tool"] for e in events if e.kind == "tool.error"] == ["explode"]
    requests = [e.data["messages"] for e in events if e.kind == "model.request"]
    assert len(requests) == 3  # the model saw every failure and went on
    results = [m for m in requests[1] if m["role"] == "tool"]
    assert len(results) == 3
    assert "missing.py" in results[0]["content"]
    assert "outside the workspace" in results[1]["content"]
    assert "ZeroDivisionError: cannot read main.py" in results[2]["content"]
    assert requests[2][-1]["role"] == "tool" and "10" in requests[2][-1]["content"]
    nodes = [e.data["node"] for e in events if e.kind == "node.start"]
    loop = nodes[nodes.index("prepare") : nodes.index("finish") + 1]
    assert loop == ["prepare", "agent", "tools", "agent", "tools", "agent", "finish"]


def test_a_call_whose_arguments_are_no_json_is_told_to_the_model(tmp_path: Path) -> None:
    """A probe's find: a call whose arguments the server sent as no JSON object (the
    provider's `invalid_tool_calls`) vanished: the model heard only that its reply
    changed nothing, and the log held no call. It is logged, and answered with what was
    wrong, and the loop goes on."""
    root = folder(tmp_path / "work")
    garbled = {  # one readable call beside it: both answered
        "content": "",
        "tool_calls": [
            {"name": "read_file", "args": {"path": "main.py"}},
            {"name": "write_file", "args": "path=main.py"},
        ],
    }
    replies = [garbled, whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(root, replies, overrides=ONE_AGENT)
    assert result.status == "verified", result.message
    response = next(e.data for e in events if e.kind == "model.response")
    assert response["invalid_tool_calls"][0]["args"] == "path=main.py"
    requests = [e.data["messages"] for e in events if e.kind == "model.request"]
    told = [m["content"] for m in requests[1] if m["role"] == "tool"]
    assert len(told) == 2 and "total" in told[0]
    assert told[1:] == [
        "the arguments of this call to write_file are not a JSON object (Expecting value: "
        "line 1 column 1 (char 0)): 'path=main.py'; call it again with its arguments as one "
        "JSON object"
    ]


def test_the_round_limit_ends_the_loop_with_a_note(tmp_path: Path) -> None:
    root = folder(tmp_path / "work")
    again = tool_calls(("read_file", {"path": "main.py"}))
    flags = [*ONE_AGENT, "runtime.max_tool_iterations=2", "runtime.max_iterations=1"]
    result, events, _ = run_in_process(root, [again] * 3, overrides=flags)
    assert [d["tool"] for d in model_side(events, "tool.call")] == ["read_file"] * 2
    assert len([e for e in events if e.kind == "model.request"]) == 3
    assert [e.data["rounds"] for e in events if e.kind == "agent.tool_limit"] == [2]
    assert result.status == "unverified" and (root / "main.py").read_text() == BUGGY


def test_route_is_a_pure_function_of_the_last_reply() -> None:
    turn = Turn(profile=None, prompt=(), max_rounds=2)
    call = AIMessage("", tool_calls=[{"name": "read_file", "args": {}, "id": "1"}])
    rows: list[tuple[dict[str, Any], str]] = [
        ({"turn": turn, "turns": []}, "done"),
        ({"turn": turn, "turns": [AIMessage("the fix")]}, "done"),
        ({"turn": turn, "turns": [call], "loop_rounds": 0}, "tools"),
        ({"turn": turn, "turns": [call], "loop_rounds": 1}, "tools"),
        ({"turn": turn, "turns": [call], "loop_rounds": 2}, "done"),  # the limit
    ]
    for state, goto in rows:
        assert route(state) == goto, state  # type: ignore[arg-type]
    assert hit_cap([call]) and not hit_cap([call, AIMessage("done")])


def test_where_attempt_completion_is_the_way_out_the_routes_wait_for_it() -> None:
    """plan_verify mode: a reply without tool calls gets a reminder while another reply
    may follow; the loop ends once attempt_completion succeeded, or no reply is left."""
    plan = Turn(profile=None, prompt=(), max_rounds=3, completion=True)
    other = Turn(profile=None, prompt=(), max_rounds=3)
    args = {"result": "added the docstring"}
    finish = AIMessage("", tool_calls=[{"name": "attempt_completion", "args": args, "id": "c"}])
    ok = ToolMessage("Submitted", tool_call_id="c", name="attempt_completion", status="success")
    failed = ToolMessage("say what", tool_call_id="c", name="attempt_completion", status="error")
    read = AIMessage("", tool_calls=[{"name": "read_file", "args": {}, "id": "r"}])
    read_ok = ToolMessage("text", tool_call_id="r", name="read_file", status="success")
    rows: list[tuple[Any, Any, dict[str, Any], str]] = [
        (route, plan, {"turns": [AIMessage("done!")], "loop_rounds": 0}, "remind"),
        (route, plan, {"turns": [AIMessage("done!")], "loop_rounds": 1}, "remind"),
        (route, plan, {"turns": [AIMessage("done!")], "loop_rounds": 2}, "done"),  # the last
        (route, other, {"turns": [AIMessage("done!")], "loop_rounds": 0}, "done"),
        (route, plan, {"turns": [finish], "loop_rounds": 2}, "tools"),
        (after_tools, plan, {"turns": [finish, ok], "loop_rounds": 1}, "done"),
        (after_tools, plan, {"turns": [finish, failed], "loop_rounds": 1}, "agent"),
        (after_tools, plan, {"turns": [read, read_ok], "loop_rounds": 1}, "agent"),
        (after_tools, plan, {"turns": [read, read_ok], "loop_rounds": 3}, "done"),
        (after_tools, other, {"turns": [finish, ok], "loop_rounds": 1}, "agent"),
    ]
    for router, turn, state, goto in rows:
        assert router({"turn": turn, **state}) == goto, (router.__name__, state)
    assert completion([finish, ok]) == "added the docstring"
    assert completion([finish, failed]) is None and completion([read, read_ok]) is None
    assert completion([finish, ok, AIMessage("more")]) is None  # not the last round's


def test_text_mode_turns_are_shown_as_text() -> None:
    call = AIMessage(
        '{"tool": "read_file"}', tool_calls=[{"name": "read_file", "args": {}, "id": "t"}]
    )
    result = ToolMessage("10", tool_call_id="t", name="read_file", status="success")
    shown = model_view([call, result], native=False)
    assert [type(m).__name__ for m in shown] == ["AIMessage", "HumanMessage"]
    assert not shown[0].tool_calls and shown[1].content == "Result of read_file (ok):\n10"
    assert model_view([call, result], native=True) == [call, result]


def test_the_drawn_graph_shows_the_agent_loop_inside_execute() -> None:
    drawn = build_graph().get_graph(xray=True).draw_mermaid()
    for edge in (
        "delegate -.-> execute\\3aprepare;",
        "execute\\3aprepare -.-> execute\\3aagent;",
        "execute\\3aagent -.-> execute\\3atools;",
        "execute\\3atools -.-> execute\\3aagent;",
        "execute\\3aagent -. &nbsp;done&nbsp; .-> execute\\3afinish;",
        "execute\\3aagent -.-> execute\\3aremind;",  # plan_verify: a reply without tools
        "execute\\3aremind --> execute\\3aagent;",
        "execute\\3atools -. &nbsp;done&nbsp; .-> execute\\3afinish;",  # attempt_completion
        "execute\\3afinish --> verify;",
    ):
        assert edge in drawn, edge
