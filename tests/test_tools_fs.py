"""File tools on real files: reading, writing, editing, copying, moving, listing."""

from __future__ import annotations

import os

import pytest

from codur.approval import Gate
from codur.config.schema import ToolsConfig
from codur.errors import ApprovalRequired


def test_read_file_whole_and_by_line_range(call, tool_ws) -> None:
    (tool_ws / "a.py").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    assert call("read_file", path="a.py").output == "one\ntwo\nthree\n"
    ranged = call("read_file", path="a.py", start_line=2, end_line=3).output
    assert ranged == "two\nthree\n\n[lines 2-3 of 3]"
    assert call("read_file", path="a.py", start_line=9).output == "[no lines: a.py has 3 lines]"
    assert "need 1 <= start_line" in call("read_file", path="a.py", start_line=0).output


def test_read_file_caps_size_and_says_where_to_go_on(call, tool_ctx, tool_ws) -> None:
    tool_ctx.config = ToolsConfig(max_read_bytes=100)
    (tool_ws / "long.txt").write_text("".join(f"line {n:03}\n" for n in range(1, 101)))
    out = call("read_file", path="long.txt").output
    assert out.startswith("line 001\n") and "line 011\n" in out and "line 012" not in out
    assert out.endswith("[cut at 100 bytes: file has 100 lines; next start_line=12]")
    assert call("read_file", path="long.txt", start_line=12).output.startswith("line 012\n")


def test_read_file_refuses_binary_folders_and_missing_files(call, tool_ws) -> None:
    (tool_ws / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (tool_ws / "latin1.txt").write_bytes(b"caf\xe9\n")
    (tool_ws / "sub").mkdir()
    assert "binary file (11 bytes)" in call("read_file", path="img.png").output
    assert "not UTF-8 text" in call("read_file", path="latin1.txt").output
    assert "is a folder" in call("read_file", path="sub").output
    result = call("read_file", path="nope.txt")
    assert not result.ok and "no such file: nope.txt" in result.output


def test_write_file_creates_folders_and_keeps_mode_and_crlf(call, tool_ws) -> None:
    assert call("write_file", path="pkg/new.py", content="x = 1\n").output.startswith("Created")
    assert (tool_ws / "pkg/new.py").read_text() == "x = 1\n"
    script = tool_ws / "run.sh"
    script.write_bytes(b"echo a\r\necho b\r\n")
    os.chmod(script, 0o755)
    assert call("write_file", path="run.sh", content="echo c\n").output.startswith("Overwrote")
    assert script.read_bytes() == b"echo c\r\n" and script.stat().st_mode & 0o777 == 0o755
    assert not [p for p in tool_ws.rglob("*codur-tmp*")]
    assert "is a folder" in call("write_file", path="pkg", content="x").output


def test_append_file(call, tool_ws) -> None:
    call("append_file", path="log.txt", content="a\n")
    call("append_file", path="log.txt", content="b\n")
    assert (tool_ws / "log.txt").read_text() == "a\nb\n"
    (tool_ws / "blob").write_bytes(b"\x00\x01")
    assert "binary file" in call("append_file", path="blob", content="x").output


def test_replace_in_file_exact_unique_or_all(call, tool_ws) -> None:
    target = tool_ws / "m.py"
    target.write_bytes(b"a = 1\r\nb = 1\r\n")
    assert call("replace_in_file", path="m.py", old="b = 1", new="b = 2").ok
    assert target.read_bytes() == b"a = 1\r\nb = 2\r\n"
    twice = call("replace_in_file", path="m.py", old=" = ", new="=")
    assert not twice.ok and "occurs 2 times" in twice.output
    assert call("replace_in_file", path="m.py", old=" = ", new="=", replace_all=True).ok
    assert target.read_bytes() == b"a=1\r\nb=2\r\n"
    missing = call("replace_in_file", path="m.py", old="b=3", new="x")
    assert (
        not missing.ok
        and "not found" in missing.output
        and "closest line is 'b=2'" in missing.output
    )
    assert not call("replace_in_file", path="m.py", old="", new="x").ok


def asking(tool_ctx, answer: bool, mode: str = "auto-edit") -> list[tuple[str, str]]:
    """Give `tool_ctx` a gate in `mode` that answers `answer`; the questions it was asked."""
    asked: list[tuple[str, str]] = []
    tool_ctx.gate = Gate(mode, lambda q, d: asked.append((q, d)) or answer, tool_ctx.bus)
    return asked


def test_delete_needs_approval(call, tool_ctx, tool_ws) -> None:
    (tool_ws / "a.txt").write_text("a")
    tool_ctx.gate = Gate("auto-edit", None, tool_ctx.bus)  # nobody to ask: the run stops
    with pytest.raises(ApprovalRequired, match="needs approval to delete a.txt"):
        call("delete_file", path="a.txt")
    assert (tool_ws / "a.txt").exists()
    asking(tool_ctx, False)
    refused = call("delete_file", path="a.txt")
    assert not refused.ok and "the user declined this edit: delete a.txt" in refused.output
    assert (tool_ws / "a.txt").exists()
    questions = asking(tool_ctx, True)
    assert call("delete_file", path="a.txt").ok and not (tool_ws / "a.txt").exists()
    assert questions == [("Allow the agent to delete a.txt?", "")]
    approval = [e for e in tool_ctx.events if e.kind == "approval"][-1]
    assert approval.data == {
        "action": "destructive",
        "what": "delete a.txt",
        "approved": True,
        "mode": "auto-edit",
    }
    (tool_ws / "sub").mkdir()
    assert "is a folder" in call("delete_file", path="sub").output


def test_full_auto_asks_nothing_and_suggest_asks_every_edit(call, tool_ctx, tool_ws) -> None:
    (tool_ws / "a.txt").write_text("a\n")
    tool_ctx.gate = Gate("full-auto", lambda q, d: pytest.fail("must not ask"), tool_ctx.bus)
    assert call("write_file", path="b.txt", content="b\n").ok
    assert call("delete_file", path="b.txt").ok
    asked = asking(tool_ctx, False, "suggest")
    refused = call("write_file", path="a.txt", content="changed\n")
    assert not refused.ok and "the user declined this edit: write a.txt" in refused.output
    assert (tool_ws / "a.txt").read_text() == "a\n"
    question, diff = asked[0]
    assert question == "Allow the agent to write a.txt?" and "-a\n+changed\n" in diff


def test_copy_file(call, tool_ctx, tool_ws) -> None:
    src = tool_ws / "a.sh"
    src.write_text("echo a\n")
    os.chmod(src, 0o750)
    assert call("copy_file", source="a.sh", destination="b/c.sh").ok
    assert (tool_ws / "b/c.sh").read_text() == "echo a\n"
    assert (tool_ws / "b/c.sh").stat().st_mode & 0o777 == 0o750
    assert call("copy_file", source="a.sh", destination="b").output == "Copied a.sh to b/a.sh"
    (tool_ws / "d.sh").write_text("keep")
    asked = asking(tool_ctx, False)  # auto-edit: copying to a new file is an edit, not asked
    over = call("copy_file", source="a.sh", destination="d.sh")
    assert not over.ok and "copy a.sh to d.sh over the existing file" in over.output
    assert (tool_ws / "d.sh").read_text() == "keep" and len(asked) == 1
    assert "same file" in call("copy_file", source="a.sh", destination="a.sh").output
    asking(tool_ctx, True)
    assert call("copy_file", source="a.sh", destination="d.sh").ok
    assert (tool_ws / "d.sh").read_text() == "echo a\n"


def test_move_file_and_folder(call, tool_ctx, tool_ws) -> None:
    (tool_ws / "a.txt").write_text("a")
    assert call("move_file", source="a.txt", destination="sub/b.txt").ok
    assert (tool_ws / "sub/b.txt").read_text() == "a" and not (tool_ws / "a.txt").exists()
    assert call("move_file", source="sub", destination="moved").ok
    assert (tool_ws / "moved/b.txt").exists()
    (tool_ws / "c.txt").write_text("c")
    asked = asking(tool_ctx, False)
    over = call("move_file", source="c.txt", destination="moved/b.txt")
    assert not over.ok and "move c.txt to moved/b.txt over the existing file" in over.output
    assert (tool_ws / "moved/b.txt").read_text() == "a" and len(asked) == 1
    asking(tool_ctx, True)
    assert call("move_file", source="c.txt", destination="moved/b.txt").ok
    assert (tool_ws / "moved/b.txt").read_text() == "c"
    assert "no such file or folder" in call("move_file", source="zz", destination="y").output
    assert "workspace itself" in call("move_file", source=".", destination="y").output


def test_changes_are_recorded_before_they_happen(call, tool_ctx, tool_ws) -> None:
    from codur.config import load_config
    from codur.undo.snapshot import begin

    (tool_ws / "a.txt").write_text("a")
    config = load_config(tool_ws).config
    tool_ctx.changes.snapshot = begin(tool_ctx.ws, config, "run-1", "a task", tool_ctx.bus)
    call("write_file", path="a.txt", content="b")
    call("write_file", path="new.txt", content="n")
    call("delete_file", path="a.txt")
    snapshot = tool_ctx.changes.snapshot
    assert snapshot.saved == {"a.txt": True, "new.txt": False}  # as each was before
    assert snapshot.original("a.txt") == "a"


def test_listing_and_tree_respect_gitignore(call, tool_ctx, tool_ws) -> None:
    files = {
        ".gitignore": "*.log\nbuild/\n!keep.log\n",
        "main.py": "",
        "debug.log": "",
        "keep.log": "",
        "build/out.bin": "",
        "src/app.py": "",
        "src/.gitignore": "generated.py\n",
        "src/generated.py": "",
        "src/deep/x.py": "",
        "__pycache__/m.pyc": "",
        ".git/HEAD": "",
    }
    for rel, text in files.items():
        (tool_ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (tool_ws / rel).write_text(text)
    (tool_ws / "link_out").symlink_to(tool_ws.parent)
    assert call("list_files").value == [".gitignore", "keep.log", "link_out", "main.py"]
    assert call("list_files", path="src", recursive=True).value == [
        "src/.gitignore", "src/app.py", "src/deep/x.py",
    ]  # fmt: skip
    assert call("list_dirs", recursive=True).value == ["src/", "src/deep/"]
    tree = call("file_tree", max_depth=2).output
    assert tree.splitlines() == [
        "./", "  .gitignore", "  keep.log", "  link_out", "  main.py", "  src/",
        "    .gitignore", "    app.py", "    deep/",
    ]  # fmt: skip
    assert "does not exist" in call("list_files", path="nope").output
    assert "is a file" in call("file_tree", path="main.py").output
    tool_ctx.config = ToolsConfig(max_list_entries=2)
    assert call("list_files").value[-1].startswith("[stopped after 2 entries")


def test_read_file_reads_a_python_file_in_its_declared_encoding(call, tool_ws) -> None:
    (tool_ws / "menu.py").write_bytes(b'# -*- coding: latin-1 -*-\nname = "Caf\xe9"\n')
    assert call("read_file", path="menu.py").output.endswith('name = "Café"\n')
