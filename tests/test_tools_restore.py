"""restore_file: one file back as it was when the run started (the run's start snapshot),
in a plain folder and in a git repository (whose .git programs cannot write)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import time
from pathlib import Path

import pytest

from codur.approval import Gate
from codur.config import load_config
from codur.events import EventBus
from codur.session import Session
from codur.tools.registry import invoke
from codur.undo.snapshot import begin
from codur.workspace import Workspace


def _session(root: Path, mode: str = "full-auto") -> Session:
    config = load_config(root, overrides=[f"approval.mode={mode}"], environ={}).config
    session = Session(config, Workspace(root), EventBus())
    session.changes.snapshot = begin(session.ws, config, session.run_id, "a task", session.bus)
    return session


@pytest.mark.parametrize("git", [False, True])
def test_changes_deletions_and_new_files_are_taken_back(tmp_path: Path, git: bool) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "run.sh").write_text("echo hi\n")
    (root / "run.sh").chmod(0o755)
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    session = _session(root)
    ctx = session.tool_context()
    assert invoke("write_file", {"path": "a.py", "content": "x = 2\n"}, ctx).ok
    with session.changes.program(root):  # a program of the run removed it
        (root / "run.sh").unlink()
    assert invoke("write_file", {"path": "new/b.py", "content": "y = 1\n"}, ctx).ok
    results = [invoke("restore_file", {"path": p}, ctx) for p in ("a.py", "run.sh", "new/b.py")]
    assert [r.output for r in results] == [
        "Restored a.py as it was before the run",
        "Restored run.sh as it was before the run",
        "Deleted new/b.py, created in this run",
    ]
    assert (root / "a.py").read_text() == "x = 1\n" and (
        root / "run.sh"
    ).stat().st_mode & 0o777 == 0o755
    assert list((root / "new").iterdir()) == []  # a folder is left: it may have been there
    again = invoke("restore_file", {"path": "a.py"}, ctx)
    assert again.ok and "nothing to restore" in again.output
    (root / "a.py").write_text("x = 3  # the user's\n")  # the user, while the run works
    theirs = invoke("restore_file", {"path": "a.py"}, ctx)
    assert not theirs.ok and "a.py was changed during the run by someone" in theirs.output
    assert (root / "a.py").read_text() == "x = 3  # the user's\n"
    gone = invoke("restore_file", {"path": "never.py"}, ctx)
    assert not gone.ok and "did not exist when the run started" in gone.output
    assert not invoke("restore_file", {"path": "../outside.py"}, ctx).ok
    (tmp_path / "scratch").mkdir()  # a scratch copy's context never reaches the run's files
    scratch = dataclasses.replace(ctx, ws=Workspace(tmp_path / "scratch"))
    assert "keeps no snapshot" in invoke("restore_file", {"path": "a.py"}, scratch).output


def test_the_user_sees_the_restore_and_can_refuse_it(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    session = _session(root)
    ctx = session.tool_context()
    assert invoke("write_file", {"path": "a.py", "content": "x = 2\n"}, ctx).ok
    asked: list[str] = []
    ctx.gate = Gate("suggest", lambda q, d: asked.append(d) or False, ctx.bus)
    refused = invoke("restore_file", {"path": "a.py"}, ctx)
    assert not refused.ok and "declined" in refused.output
    assert (root / "a.py").read_text() == "x = 2\n"
    assert "-x = 2" in asked[0] and "+x = 1" in asked[0]


def test_without_a_snapshot_it_says_so(call) -> None:
    result = call("restore_file", path="a.py")
    assert not result.ok and "keeps no snapshot" in result.output


@pytest.mark.slow  # waits 2 s: file times may be that coarse
def test_files_in_no_snapshot_are_never_changed_nor_deleted(tmp_path: Path) -> None:
    """An ignored file that existed before the run, and one a program made: no copy of
    either, so write_file refuses the first (undo could not put it back) and
    restore_file says so and leaves both."""
    root = tmp_path / "proj"
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "node_modules" / "pkg" / "index.js").write_text("old\n")
    time.sleep(2.1)  # there before the run, by more than file times' 2 s
    session = _session(root)
    ctx = session.tool_context()
    edited = "node_modules/pkg/index.js"
    written = invoke("write_file", {"path": edited, "content": "new\n"}, ctx)
    assert not written.ok and "could not put it back" in written.output, written.output
    (root / "made.txt").write_text("by a program\n")
    for path in (edited, "made.txt"):
        result = invoke("restore_file", {"path": path}, ctx)
        assert not result.ok and "no copy to restore" in result.output, result.output
    assert (root / edited).read_text() == "old\n" and (root / "made.txt").exists()


def test_a_symbolic_link_itself_is_restored(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("a = 1\n")
    (root / "b.py").write_text("b = 1\n")
    (root / "link.py").symlink_to("a.py")
    session = _session(root)
    ctx = session.tool_context()
    (root / "link.py").unlink()
    (root / "link.py").symlink_to("b.py")  # a program re-pointed it
    assert invoke("write_file", {"path": "b.py", "content": "b = 2\n"}, ctx).ok
    result = invoke("restore_file", {"path": "link.py"}, ctx)
    assert result.output == "Restored link.py as it was before the run", result.output
    assert os.readlink(root / "link.py") == "a.py" and (root / "b.py").read_text() == "b = 2\n"
