"""Confinement: hostile paths through every tool that takes a path, and zero escapes.

A property test generates paths built from `..`, absolute prefixes, symlinks that lead
out, odd unicode and junk, and sends each through every path-taking tool (destructive
ones confirmed, so they really try). After each example nothing outside the workspace
may have been read (a marker string never shows up in any result), created or changed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codur.approval import Gate
from codur.config.schema import ToolsConfig
from codur.events import EventBus
from codur.tools.context import ToolContext
from codur.tools.registry import ToolResult, all_tools, invoke
from codur.workspace import Workspace
from codur.writes import Changes

MARKER = "OUTSIDE-MARKER-7f3a"
EXAMPLES = 500

INSIDE = {
    "a.txt": "alpha\n",
    "sub/b.txt": "beta\n",
    "code.py": "def f():\n    return 1\n",
    "mv_src.txt": "move me\n",
    "d.json": '{"a": 1}',
    "c.yaml": "a: 1\n",
    "c.ini": "[s]\na = 1\n",
}


def _tools(p: str) -> list[tuple[str, dict]]:
    """Every tool that takes a path, with `p` in each of its path arguments."""
    return [
        ("read_file", {"path": p}),
        ("write_file", {"path": p, "content": "PWNED\n"}),
        ("append_file", {"path": p, "content": "PWNED\n"}),
        ("replace_in_file", {"path": p, "old": MARKER, "new": "PWNED"}),
        ("delete_file", {"path": p}),
        ("copy_file", {"source": p, "destination": "copied.txt"}),
        ("copy_file", {"source": "a.txt", "destination": p}),
        ("move_file", {"source": p, "destination": "moved"}),
        ("move_file", {"source": "mv_src.txt", "destination": p}),
        ("list_files", {"path": p, "recursive": True}),
        ("list_dirs", {"path": p, "recursive": True}),
        ("file_tree", {"path": p}),
        ("search_files", {"pattern": "*", "path": p}),
        ("grep_files", {"pattern": MARKER[:7], "path": p}),
        ("read_json", {"path": p}),
        ("write_json", {"path": p, "data": {"pwned": True}}),
        ("read_yaml", {"path": p}),
        ("write_yaml", {"path": p, "data": {"pwned": True}}),
        ("read_ini", {"path": p}),
        ("write_ini", {"path": p, "data": {"s": {"pwned": "1"}}}),
        ("set_value_at_path", {"path": p, "key_path": "pwned", "value": 1}),
        ("run_python_file", {"path": p}),
        ("discover_entry_points", {"path": p}),
        ("validate_python_syntax", {"path": p}),
        ("python_outline", {"path": p}),
        ("find_python_symbol", {"path": p, "name": "f"}),
        ("replace_python_symbol", {"path": p, "name": "f", "new_source": "def f(): 0"}),
        ("git_diff", {"path": p}),
        ("git_log", {"path": p}),
        ("git_stage_files", {"paths": [p]}),
    ]


NOT_IN_PROPERTY = {
    "run_pytest": "runs a whole test session per call; its path goes through ctx.path like "
    "the others and is checked by test_run_pytest_refuses_hostile_paths",
    "run_command": "a shell command names paths in its text, which no tool can confine; it "
    "asks first (approval) and its writes are confined by the sandbox where available",
    "restore_file": "needs the run's snapshot, which the property's context has not; its "
    "hostile paths are checked by tests/test_tools_restore.py and test_git_repository.py",
    **dict.fromkeys(
        ("search_codebase", "get_callers", "get_callees"),
        "no path argument: they read the workspace through the same walk as search_files "
        "(ignore rules; secrets files never indexed), see tests/test_code_search.py",
    ),
}
# the todo tools and attempt_completion work on the graph state, never on files
PATHLESS = {"git_status", "git_commit", "list_mcp_tools", "call_mcp_tool", "read_mcp_resource",
            "fetch_webpage", "duckduckgo_search",
            "todo_write", "todo_read", "attempt_completion"}  # fmt: skip


def test_the_property_covers_every_tool_that_takes_a_path() -> None:
    covered = {name for name, _ in _tools("x")}
    assert covered | set(NOT_IN_PROPERTY) | PATHLESS == set(all_tools())


@pytest.fixture
def arena(tmp_path: Path) -> tuple[ToolContext, Path, Path]:
    """(context asking nothing, workspace, outside folder) with symlinks that lead out."""
    outside, ws = tmp_path / "outside", tmp_path / "ws"
    (outside / "sub").mkdir(parents=True)
    ws.mkdir()
    for rel in ("secret.txt", "sub/x.txt", "victim.py", "conf.json"):
        (outside / rel).write_text(f"{MARKER}\n")
    (tmp_path / "outside.txt").write_text(MARKER)
    (ws / "link_out").symlink_to(outside / "secret.txt")
    (ws / "dir_out").symlink_to(outside)
    (ws / "dangling_out").symlink_to(outside / "created-through-link.txt")
    (ws / "loop_a").symlink_to(ws / "loop_b")
    (ws / "loop_b").symlink_to(ws / "loop_a")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    config = ToolsConfig(run_timeout_s=5, grep_timeout_s=5, git_timeout_s=5)
    return ToolContext(Workspace(ws), config, EventBus()), ws, outside


def _snapshot(tmp: Path, ws: Path) -> dict[str, tuple[bytes, int]]:
    """Every file and folder under tmp outside the workspace: content and mode."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(tmp):
        if Path(dirpath) == tmp and "ws" in dirnames:
            dirnames.remove("ws")
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            out[str(path)] = (data, path.lstat().st_mode)
    return out


def _lexical(ws: Path, p: str) -> Path | None:
    """Where `p` would land without resolution (to check that nothing appeared there)."""
    if "\x00" in p:
        return None
    return Path(os.path.normpath(os.path.join(ws, p)))


def _segments(outside: Path) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(
            [
                "..",
                "..",
                ".",
                "",
                "outside",
                "outside.txt",
                "secret.txt",
                "sub",
                "x.txt",
                "victim.py",
                "conf.json",
                "link_out",
                "dir_out",
                "dangling_out",
                "loop_a",
                "ws",
                "a.txt",
                "code.py",
                "．．",
                "\u2024\u2024",
                "..\u200b",
                "\u202e..",
                "%2e%2e",
                "..%2f",
                "~",
                "$HOME",
                "..\\..",
                "／..",
                "\x00",
                "\udcff",
                "\ud800",
                "\n..",
                "\u0338",
                "a" * 300,
                "*",
                "?",
            ]
        ),  # fmt: skip
        st.text(max_size=6),
    )


def _hostile(outside: Path, ws: Path) -> st.SearchStrategy[str]:
    prefix = st.sampled_from(
        ["", "", "", "/", "//", str(outside) + "/", str(outside.parent) + "/", "/etc/",
         "/tmp/", str(ws) + "/../", str(ws) + "/dir_out/", "dir_out/"]
    )  # fmt: skip
    sep = st.sampled_from(["/", "//", "/./"])
    parts = st.lists(_segments(outside), min_size=1, max_size=6)
    return st.builds(lambda a, s, b: a + s.join(b), prefix, sep, parts)


def _reset_inside(ws: Path) -> None:
    for rel, text in INSIDE.items():
        target = ws / rel
        if target.is_dir() and not target.is_symlink():
            continue  # a tool moved a folder here: leave it, the property still holds
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


@pytest.mark.slow
def test_hostile_paths_never_escape(arena: tuple[ToolContext, Path, Path]) -> None:
    ctx, ws, outside = arena
    tmp = ws.parent
    before = _snapshot(tmp, ws)
    seen: list[int] = []

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(path=_hostile(outside, ws))
    def check(path: str) -> None:
        seen.append(1)
        _reset_inside(ws)
        target = _lexical(ws, path)
        existed = target is not None and os.path.lexists(target)
        results: list[ToolResult] = [invoke(name, args, ctx) for name, args in _tools(path)]
        for result in results:
            assert MARKER not in result.output, (path, result.tool, result.output[:300])
        assert _snapshot(tmp, ws) == before, path
        if target is not None and not existed and not ws_contains(ws, target):
            assert not os.path.lexists(target), (path, target)

    check()
    assert len(seen) >= EXAMPLES
    inside = [Path(d, f) for d, _, files in os.walk(ws) for f in files]
    leaked = [p for p in inside if not p.is_symlink() and MARKER in p.read_text("utf-8", "replace")]
    assert leaked == []


def ws_contains(ws: Path, target: Path) -> bool:
    return target == ws or ws in target.parents


@pytest.mark.parametrize(
    "path", ["..", "../outside", "/etc", "dir_out", "link_out", "loop_a", "bad\x00", "\ud800"]
)
def test_run_pytest_refuses_hostile_paths(arena, path: str) -> None:
    ctx, _, _ = arena
    result = invoke("run_pytest", {"path": path}, ctx)
    assert not result.ok and ("outside the workspace" in result.output or "invalid path" in
                              result.output)  # fmt: skip


def test_outside_access_only_when_config_allows_it(arena) -> None:
    ctx, ws, outside = arena
    assert "outside the workspace" in invoke("read_file", {"path": "link_out"}, ctx).output
    free = ToolContext(Workspace(ws), ToolsConfig(allow_outside_workspace=True), EventBus())
    assert invoke("read_file", {"path": "link_out"}, free).output == f"{MARKER}\n"
    assert invoke("read_file", {"path": str(outside / "sub/x.txt")}, free).ok
    # a run's context: its write path (the session's, inside the workspace only) writes
    # a tool's file outside where the tools config allows it
    bus = EventBus()
    run = Changes(Workspace(ws), bus, Gate("full-auto", bus=bus))
    config = ToolsConfig(allow_outside_workspace=True)
    ran = ToolContext(Workspace(ws), config, bus, gate=run.gate, changes=run)
    target = outside / "sub" / "new.txt"
    written = invoke("write_file", {"path": str(target), "content": "hello\n"}, ran)
    assert written.ok, written.output
    assert target.read_text() == "hello\n"


@pytest.mark.parametrize(
    "name", [".env", ".env.local", "config/.env", "server.pem", "id_rsa", "id_ed25519.pub"]
)
def test_secrets_are_not_read_unless_allowed(tool_ctx, tool_ws, call, name: str) -> None:
    (tool_ws / name).parent.mkdir(parents=True, exist_ok=True)
    (tool_ws / name).write_text("TOKEN=s3cr3t\n")
    (tool_ws / "innocent.txt").symlink_to(tool_ws / name)
    for tool, args in [
        ("read_file", {"path": name}),
        ("read_file", {"path": "innocent.txt"}),
        ("copy_file", {"source": name, "destination": "copy.txt"}),
        ("move_file", {"source": name, "destination": "moved.txt"}),
        ("read_ini", {"path": name}),
    ]:
        result = call(tool, **args)
        assert not result.ok and "secrets file" in result.output, (tool, args)
        assert "s3cr3t" not in result.output
    assert "s3cr3t" not in call("grep_files", pattern="s3cr3t").output
    tool_ctx.config = ToolsConfig(allow_secrets=True)
    assert call("read_file", path=name).output == "TOKEN=s3cr3t\n"


def test_secret_patterns_are_configurable(tool_ctx, tool_ws, call) -> None:
    (tool_ws / "vault.txt").write_text("k")
    (tool_ws / ".env").write_text("k")
    tool_ctx.config = ToolsConfig(secret_patterns=["vault.*"])
    assert "secrets file" in call("read_file", path="vault.txt").output
    assert call("read_file", path=".env").ok
