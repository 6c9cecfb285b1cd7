"""Workspace confinement and atomic, format-preserving writes on real files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codur.errors import WorkspaceError
from codur.workspace import Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    (root / "link").symlink_to(tmp_path / "outside.txt")
    return Workspace(root)


@pytest.mark.parametrize(
    "path", ["../outside.txt", "/etc/passwd", "a/../../outside.txt", "link", "bad\x00name"]
)
def test_paths_outside_are_refused(ws: Workspace, path: str) -> None:
    with pytest.raises(WorkspaceError):
        ws.resolve(path)
    with pytest.raises(WorkspaceError):
        ws.write_text(path, "x")


def test_write_is_atomic_and_keeps_mode_and_crlf(ws: Workspace) -> None:
    target = ws.root / "script.py"
    target.write_bytes(b"a = 1\r\nb = 2\r\n")
    os.chmod(target, 0o755)
    ws.write_text("script.py", "a = 1\nb = 3\n")
    assert target.read_bytes() == b"a = 1\r\nb = 3\r\n"
    assert target.stat().st_mode & 0o777 == 0o755
    assert [p.name for p in ws.root.iterdir() if "codur-tmp" in p.name] == []


def test_new_nested_file_and_read_errors(ws: Workspace) -> None:
    ws.write_text("pkg/mod.py", "x = 1\n")
    assert ws.read_text("pkg/mod.py") == "x = 1\n"
    (ws.root / "bin.dat").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(WorkspaceError, match="not UTF-8"):
        ws.read_text("bin.dat")
    with pytest.raises(WorkspaceError, match="cannot read"):
        ws.read_text("missing.py")


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("bad\x00name", "NUL byte"),
        ("new\nline", "control character"),
        ("esc\x1b[2J", "control character"),
        ("\ud800", "not encodable"),
        ("loop", "invalid path"),
    ],
)
def test_odd_paths_are_refused_with_a_reason(ws: Workspace, path: str, problem: str) -> None:
    (ws.root / "loop").symlink_to(ws.root / "loop")
    with pytest.raises(WorkspaceError, match=problem):
        ws.resolve(path)


def test_inside_paths_resolve(ws: Workspace) -> None:
    (ws.root / "real").mkdir()
    (ws.root / "inner").symlink_to(ws.root / "real")
    assert ws.resolve("inner/../real/x") == ws.root / "real/x"
    assert ws.resolve("inner/y") == ws.root / "real/y"
    assert ws.resolve(ws.root / "a") == ws.root / "a"
    assert ws.resolve("．．/outside.txt") == ws.root / "．．/outside.txt"  # a name, not `..`
    assert ws.resolve("") == ws.root
    assert ws.relative(ws.root / "real/x") == "real/x" and ws.relative(ws.root) == "."


def test_allow_outside_lets_paths_out(ws: Workspace) -> None:
    free = Workspace(ws.root, allow_outside=True)
    outside = ws.root.parent / "outside.txt"
    assert free.resolve("../outside.txt") == outside and free.resolve("link") == outside
    assert free.read_text("link") == "secret"
    assert free.relative(outside) == outside.as_posix()
    assert not ws.contains(outside) and ws.contains(ws.root)


def test_write_errors_are_workspace_errors(ws: Workspace) -> None:
    (ws.root / "folder").mkdir()
    with pytest.raises(WorkspaceError, match="is a folder"):
        ws.write_text("folder", "x")
    (ws.root / "file").write_text("x")
    with pytest.raises(WorkspaceError, match="cannot write"):
        ws.write_text("file/child.txt", "x")


def test_a_refused_path_is_named_as_the_user_wrote_it(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match=r"^path '\.\./x' is outside the workspace"):
        Workspace(tmp_path).resolve(Path("../x"))


LATIN1 = b'# -*- coding: latin-1 -*-\nname = "Caf\xe9"\n'


def test_a_python_file_is_read_and_written_in_the_encoding_it_declares(ws: Workspace) -> None:
    """As Python reads it (PEP 263); before, a Latin-1 module stopped the run (exit 2)."""
    (ws.root / "menu.py").write_bytes(LATIN1)
    assert ws.read_text("menu.py") == '# -*- coding: latin-1 -*-\nname = "Café"\n'
    ws.write_text("menu.py", '# -*- coding: latin-1 -*-\nname = "Crème"\n')
    assert (ws.root / "menu.py").read_bytes() == b'# -*- coding: latin-1 -*-\nname = "Cr\xe8me"\n'
    with pytest.raises(WorkspaceError, match="declares the iso8859-1 encoding, which cannot hold"):
        ws.write_text("menu.py", '# -*- coding: latin-1 -*-\nname = "☕"\n')
    assert (ws.root / "menu.py").read_bytes().endswith(b'"Cr\xe8me"\n')  # left whole
    (ws.root / "notes.txt").write_bytes(LATIN1)  # only Python files declare one
    with pytest.raises(WorkspaceError, match="not UTF-8 text"):
        ws.read_text("notes.txt")


@pytest.mark.parametrize("codec", ["rot13", "hex", "idna", "unicode_escape", "cp037", "nope"])
def test_a_cookie_naming_no_plain_text_encoding_is_read_as_utf8(ws: Workspace, codec: str) -> None:
    """These would crash the read (LookupError) or not give back what they read (idna
    wrote an empty file): Codur reads and writes such a file as UTF-8."""
    text = f"# coding: {codec}\nname = 'Café'\n"
    (ws.root / "odd.py").write_text(text)
    assert ws.read_text("odd.py") == text
    ws.write_text("odd.py", text.replace("Café", "Crème"))
    assert (ws.root / "odd.py").read_bytes() == text.replace("Café", "Crème").encode()


def test_a_cookie_on_the_second_line_after_a_latin1_comment(ws: Workspace) -> None:
    """As Python reads it: the first line need not be UTF-8 when the second declares."""
    data = b"# Caf\xe9\n# -*- coding: latin-1 -*-\nx = 1\n"
    (ws.root / "two.py").write_bytes(data)
    assert ws.read_text("two.py") == data.decode("latin-1")
    ws.write_text("two.py", data.decode("latin-1").replace("x = 1", "x = 2"))
    assert (ws.root / "two.py").read_bytes() == data.replace(b"x = 1", b"x = 2")
