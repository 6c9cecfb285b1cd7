"""The registry: derived schemas, task-type filtering, prompts, dispatch and its errors."""

from __future__ import annotations

import inspect
import threading

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool

from codur.config.schema import ToolsConfig
from codur.tools.offered import langchain_tools, prompt_section
from codur.tools.registry import TaskType, all_tools, invoke, list_tools_for_tasks

SEED_TOOLS = {
    "read_file", "write_file", "append_file", "delete_file", "copy_file", "move_file",
    "replace_in_file", "list_files", "list_dirs", "file_tree", "search_files", "grep_files",
    "read_json", "write_json", "read_yaml", "write_yaml", "read_ini", "write_ini",
    "set_value_at_path", "run_python_file", "run_pytest", "discover_entry_points",
    "validate_python_syntax", "python_outline", "find_python_symbol", "replace_python_symbol",
    "git_status", "git_diff", "git_log", "git_stage_files", "git_commit", "list_mcp_tools",
    "call_mcp_tool", "read_mcp_resource", "fetch_webpage", "duckduckgo_search", "run_command",
    "search_codebase", "get_callers", "get_callees", "restore_file",
}  # fmt: skip
PLANNING_TOOLS = {"todo_write", "todo_read", "attempt_completion"}
"""Seed 004's (plan_verify mode): the todo list, and the agent's only way to finish."""


def test_the_full_tool_set_is_registered_with_documented_schemas() -> None:
    tools = all_tools()
    assert set(tools) == SEED_TOOLS | PLANNING_TOOLS
    for spec in tools.values():
        schema = convert_to_openai_tool(spec.structured_tool)["function"]
        props = schema["parameters"].get("properties", {})
        assert "ctx" not in props, spec.name
        assert set(props) == {p.name for p in spec.params}, spec.name
        assert all(p.get("description") for p in props.values()), f"{spec.name}: undocumented"
        assert schema["description"] and spec.task_types


def test_list_tools_for_tasks_filters_by_task_type() -> None:
    git_tools = [t.name for t in list_tools_for_tasks([TaskType.GIT])]
    assert git_tools == sorted(git_tools) and "git_commit" in git_tools
    assert all(n.startswith("git_") for n in git_tools)
    both = {t.name for t in list_tools_for_tasks([TaskType.WEB, TaskType.MCP])}
    assert {"fetch_webpage", "call_mcp_tool"} <= both and "read_file" not in both
    assert len(list_tools_for_tasks()) == len(SEED_TOOLS | PLANNING_TOOLS)
    planning = {t.name for t in list_tools_for_tasks([TaskType.PLANNING])}
    assert planning == PLANNING_TOOLS


def test_prompt_section_groups_tools_under_the_requested_task_types() -> None:
    text = prompt_section([TaskType.CODE_VALIDATION, TaskType.FILE_OPERATION])
    assert text.startswith("## Available tools")
    validation, files = text.index("### Running and checking code"), text.index("### Files")
    assert validation < files
    assert "- run_pytest(path='.', keyword=None, passes=False, record=False): Run" in text
    assert "read_file(path, start_line=1, end_line=None)" in text
    assert "git_commit" not in text and "fetch_webpage" not in text
    assert text.count("- read_file(") == 1


def test_langchain_tools_bind_and_run_through_the_registry(tool_ctx, tool_ws) -> None:
    (tool_ws / "a.txt").write_text("alpha\n")
    unbound = langchain_tools([TaskType.SEARCH])
    searching = {"grep_files", "search_files", "search_codebase", "get_callers", "get_callees"}
    assert {t.name for t in unbound} == searching
    bound = {t.name: t for t in langchain_tools([TaskType.FILE_OPERATION], ctx=tool_ctx)}
    assert bound["read_file"].invoke({"path": "a.txt"}) == "alpha\n"
    assert "outside the workspace" in bound["read_file"].invoke({"path": "../x"})
    assert convert_to_openai_tool(bound["read_file"]) == convert_to_openai_tool(
        all_tools()["read_file"].structured_tool
    )


def test_unknown_tool_names_the_valid_ones(call) -> None:
    result = call("raed_file", path="x")
    assert not result.ok and result.value is None
    assert (
        "Unknown tool 'raed_file'" in result.output and "Did you mean read_file?" in result.output
    )
    assert "grep_files" in result.output and "git_commit" in result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, "path: Field required"),
        ({"path": 3}, "path: Input should be a valid string"),
        ({"path": "a", "start_line": "three"}, "start_line: Input should be a valid integer"),
        ({"path": "a", "encoding": "utf-8"}, "unexpected argument(s) encoding"),
    ],
)
def test_bad_arguments_name_the_expected_ones(call, args: dict, expected: str) -> None:
    result = call("read_file", **args)
    assert not result.ok
    assert expected in result.output
    assert "Expected: read_file(path, start_line=1, end_line=None)" in result.output


def test_non_mapping_arguments_are_an_error_result(tool_ctx) -> None:
    result = invoke("read_file", ["a.txt"], tool_ctx)  # type: ignore[arg-type]
    assert not result.ok and "arguments must be an object, not list" in result.output


def test_events_are_emitted_and_truncated(tool_ctx, tool_ws) -> None:
    tool_ctx.config = ToolsConfig(event_preview_chars=40, max_result_chars=100)
    (tool_ws / "big.txt").write_text("x" * 5000)
    result = invoke("read_file", {"path": "big.txt"}, tool_ctx)
    call_event, result_event = tool_ctx.events
    assert (call_event.kind, result_event.kind) == ("tool.call", "tool.result")
    assert call_event.data == {
        "tool": "read_file",
        "origin": "builtin",
        "args": '{"path": "big.txt"}',
    }
    assert result_event.data["ok"] is True and result_event.data["duration_s"] >= 0
    assert result_event.data["output"].startswith("x" * 40 + "\n[... cut: ")
    assert len(result.output) < 200 and "more characters]" in result.output


def test_typed_values_render_for_the_model(call, tool_ws) -> None:
    (tool_ws / "d.json").write_text('{"a": {"b": [1, 2]}}')
    result = call("read_json", path="d.json")
    assert result.value == {"a": {"b": [1, 2]}}
    assert result.output == '{\n  "a": {\n    "b": [\n      1,\n      2\n    ]\n  }\n}'
    assert call("list_files").output == "d.json"
    empty = tool_ws / "empty"
    empty.mkdir()
    assert call("list_files", path="empty").output == "(none)"


def test_writing_tools_hold_the_write_lock(tool_ctx) -> None:
    writers = {t.name for t in all_tools().values() if t.writes}
    assert {"write_file", "replace_in_file", "move_file", "replace_python_symbol"} <= writers
    assert "read_file" not in writers
    done = threading.Event()

    def write() -> None:
        invoke("write_file", {"path": "w.txt", "content": "x"}, tool_ctx)
        done.set()

    with tool_ctx.write_lock:
        thread = threading.Thread(target=write)
        thread.start()
        assert not done.wait(0.3)  # blocked until the lock is released
    thread.join(5)
    assert done.is_set()


def test_every_tool_takes_ctx_first() -> None:
    for spec in all_tools().values():
        first = next(iter(inspect.signature(spec.func).parameters))
        assert first == "ctx", spec.name


def test_context_from_a_session_uses_its_config_gate_and_snapshot(tmp_path) -> None:
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.tools.context import ToolContext
    from codur.undo.snapshot import begin
    from codur.workspace import Workspace

    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "a.txt").write_text("before")
    flags = ["approval.mode=full-auto", "mcp_servers.srv.command=srv-binary"]
    config = load_config(ws, overrides=flags).config
    session = Session(config, Workspace(ws), EventBus())
    session.changes.snapshot = begin(session.ws, config, session.run_id, "a task", session.bus)
    ctx = ToolContext.from_session(session)
    assert ctx.config is config.tools and ctx.gate is session.gate and ctx.bus is session.bus
    assert ctx.gate.mode == "full-auto" and ctx.mcp_servers["srv"].command == "srv-binary"
    assert invoke("write_file", {"path": "a.txt", "content": "after"}, ctx).ok
    assert invoke("write_file", {"path": "b.txt", "content": "new"}, ctx).ok
    assert session.snapshot.saved == {"a.txt": True, "b.txt": False}
    changes = session.changes
    assert changes.written() == ["a.txt", "b.txt"] and changes.made_in_run("b.txt") == "created"
    assert session.snapshot.original("a.txt") == "before"


def test_a_scratch_copy_still_asks_before_running_a_program_made_in_the_run(tmp_path) -> None:
    """A sampled candidate's or the repair's scratch copy of the workspace keeps the
    run's facts: a check program the run created asks before it runs there too (and
    code the run changed makes any program a destructive action)."""
    import dataclasses
    import shutil

    import pytest

    from codur.config import load_config
    from codur.errors import ApprovalRequired
    from codur.events import EventBus
    from codur.session import Session
    from codur.tools.context import ToolContext
    from codur.undo.snapshot import begin
    from codur.workspace import Workspace

    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "main.py").write_text("print(1)\n")
    config = load_config(ws, overrides=["approval.mode=auto-edit"]).config
    session = Session(config, Workspace(ws), EventBus())
    session.changes.snapshot = begin(session.ws, config, session.run_id, "a task", session.bus)
    ctx = ToolContext.from_session(session)
    session.changes.write("check.py", "print('ok')\n", by="coder")
    scratch = tmp_path / "scratch"
    shutil.copytree(ws, scratch)
    for where in (ws, scratch):
        checking = dataclasses.replace(ctx, ws=Workspace(where), checking=True)
        with pytest.raises(ApprovalRequired, match="written in this run"):
            checking.approve_run("run python check.py", where / "check.py")
        other = dataclasses.replace(ctx, ws=Workspace(where))
        with pytest.raises(ApprovalRequired, match="code changed in this run: check.py"):
            other.approve_run("run python main.py", where / "main.py")
