"""Both snapshot stores on real folders (one plain, one a git repo): exact modes,
symlinks, created folders, a run Codur never saw end, files that became folders."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from codur.approval import Gate
from codur.config import load_config
from codur.errors import UndoRefused, UsageError
from codur.events import EventBus
from codur.resume.listing import list_runs
from codur.scope import ScopeError
from codur.ui import IO
from codur.undo import commands, state_root
from codur.undo.records import History
from codur.undo.snapshot import begin
from codur.workspace import Workspace
from codur.writes import Changes


@pytest.fixture(params=["files", "git"])
def ws(request, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    if request.param == "git":
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "private.txt").write_text("secret-ish\n")
    (root / "private.txt").chmod(0o600)
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    (root / "link").symlink_to("private.txt")
    (root / "lib").mkdir()
    (root / "lib/mod.py").write_text("X = 1\n")
    return root


def state(root: Path) -> dict[str, tuple[str, object, int]]:
    """Every entry under root but .git and .codur (Codur's run lock, which every run and
    undo takes): kind, content or link target, permission bits."""
    found = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", ".codur")]
        for name in [*names, *dirs]:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path), 0)
            elif path.is_dir():
                found[rel] = ("dir", None, 0)
            else:
                found[rel] = ("file", path.read_bytes(), path.stat().st_mode & 0o777)
    return found


def start(root: Path, run_id: str = "r1"):
    config = load_config(root, environ={}).config
    return config, begin(Workspace(root), config, run_id, "a run", EventBus())


@pytest.mark.slow
def test_undo_restores_content_modes_links_and_removes_what_was_created(ws: Path) -> None:
    before = state(ws)
    config, snap = start(ws)
    with snap.program():  # as one of the run's programs
        (ws / "private.txt").write_text("overwritten\n")  # a write keeps the mode...
        (ws / "run.sh").chmod(0o644)  # ...a program may not
        (ws / "link").unlink()
        (ws / "lib/mod.py").unlink()
        (ws / "new/deeper").mkdir(parents=True)
        (ws / "new/deeper/made.txt").write_text("made\n")
        (ws / "new_link").symlink_to("run.sh")
    changed = snap.finish("done")
    assert changed == [
        "lib/mod.py", "link", "new/deeper/made.txt", "new_link", "private.txt", "run.sh"
    ]  # fmt: skip
    assert commands.undo(Workspace(ws), config, None, False, IO()) == 0
    assert state(ws) == before
    assert (ws / "private.txt").stat().st_mode & 0o777 == 0o600


@pytest.mark.slow
def test_a_same_size_rewrite_with_its_time_put_back_is_undone(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside git a file's content is read again when its size, time or status change
    time differ: a program that rewrote data in place and put its time back with `utime`
    was missed, and undo left its data (a hostile probe)."""
    from codur.undo import filestore

    monkeypatch.setattr(filestore, "RACY_S", 0.0)  # every file settled: its times are kept
    data = ws / "data.txt"
    data.write_text("precious lowercase data\n")
    old = data.stat()
    os.utime(data, ns=(old.st_atime_ns, old.st_mtime_ns - 10**10))
    start(ws, "r0")[1].finish("done")  # an earlier run: its snapshot knows the file
    before = state(ws)
    config, snap = start(ws)
    info = data.stat()
    time.sleep(1.1)  # the rewrite comes later than the file's last change (git: seconds)
    with snap.program():
        data.write_text("PRECIOUS LOWERCASE DATA\n")
        os.utime(data, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert "data.txt" in snap.finish("done")
    assert commands.undo(Workspace(ws), config, None, False, IO()) == 0
    assert state(ws) == before


@pytest.mark.slow
def test_a_run_without_an_end_snapshot_needs_force(ws: Path, capsys) -> None:
    config, snap = start(ws)  # Codur is killed before finish(): no end snapshot
    (ws / "lib/mod.py").write_text("X = 2\n")
    assert History(state_root(), ws).records()[0].end == ""
    start(ws, "r0")[1].finish("done")  # a later run that changed nothing
    with pytest.raises(UndoRefused, match="has no end snapshot .*: lib/mod.py"):
        commands.undo(Workspace(ws), config, "r1", False, IO())
    # plain `codur undo` names the killed run (it said only "nothing to undo"), and does
    # not take it on: the difference may be the user's own since
    with pytest.raises(UsageError, match="run r1 was stopped before its end snapshot .* --run r1"):
        commands.undo(Workspace(ws), config, None, False, IO())
    assert (ws / "lib/mod.py").read_text() == "X = 2\n"
    capsys.readouterr()
    assert commands.diff(Workspace(ws), config, "r1", IO()) == 0
    assert "r1 (a run): 1 file(s) changed" in capsys.readouterr().out  # the diff's count
    assert commands.undo(Workspace(ws), config, "r1", True, IO()) == 0
    assert (ws / "lib/mod.py").read_text() == "X = 1\n"
    assert list_runs(Workspace(ws), IO()) == 0  # `codur runs`, which lists undos too
    assert "no end snapshot" not in capsys.readouterr().out.split("undone by")[0]


@pytest.mark.slow
def test_a_file_the_run_made_a_folder_comes_back(ws: Path) -> None:
    config, snap = start(ws)
    with snap.program():
        (ws / "lib/mod.py").unlink()
        (ws / "lib/mod.py").mkdir()
        (ws / "lib/mod.py/inside.txt").write_text("x\n")
    snap.finish("done")
    assert commands.undo(Workspace(ws), config, None, False, IO()) == 0
    assert (ws / "lib/mod.py").read_text() == "X = 1\n"


@pytest.mark.slow
def test_a_folder_the_user_made_is_reported_not_clobbered(ws: Path, capsys) -> None:
    config, snap = start(ws)
    with snap.program():
        (ws / "lib/mod.py").unlink()
    snap.finish("done")
    (ws / "lib/mod.py").mkdir()  # after the run, by the user
    (ws / "lib/mod.py/mine.txt").write_text("x\n")
    with pytest.raises(UndoRefused, match="changed since it ended: lib/mod.py"):
        commands.undo(Workspace(ws), config, None, False, IO())
    assert commands.undo(Workspace(ws), config, None, True, IO()) == 4
    assert "not restored: lib/mod.py: now a folder; left as it is" in capsys.readouterr().err
    assert (ws / "lib/mod.py/mine.txt").exists()


@pytest.mark.slow
def test_a_damaged_record_is_named_and_the_rest_still_work(ws: Path, capsys) -> None:
    config, snap = start(ws)
    with snap.program():
        (ws / "lib/mod.py").write_text("X = 3\n")
    snap.finish("done")
    (History(state_root(), ws).folder / "broken.json").write_text("{not json")
    assert commands.undo(Workspace(ws), config, None, False, IO()) == 0
    assert "unreadable run records, ignored: " in capsys.readouterr().err
    assert (ws / "lib/mod.py").read_text() == "X = 1\n"


def test_the_diff_shows_changes_of_line_endings_and_final_newlines(ws: Path, capsys) -> None:
    """A run turning CRLF into LF, or dropping a final newline, shows in `codur diff` as git
    shows it (`^M`, `\\ No newline at end of file`), not as lines that look unchanged."""
    (ws / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    config, snap = start(ws)
    (ws / "crlf.txt").write_bytes(b"a\nb\n")
    (ws / "lib/mod.py").write_text("X = 1")
    snap.finish("done")
    capsys.readouterr()
    assert commands.diff(Workspace(ws), config, None, IO()) == 0
    shown = capsys.readouterr().out
    assert "-a^M\n-b^M\n+a\n+b\n" in shown, shown
    assert "-X = 1\n+X = 1\n\\ No newline at end of file\n" in shown, shown


@pytest.mark.slow
def test_who_changed_what_during_a_run(ws: Path, capsys) -> None:
    """Codur's own writes (noted, then made) and its programs' changes are the run's; a
    change found at the next look otherwise (before a program, before Codur writes that
    file, at the end) is someone else's: undo names it and keeps it unless --force."""
    before = state(ws)
    config, snap = start(ws)
    snap.note("lib/mod.py")  # Codur's edit
    (ws / "lib/mod.py").write_text("X = 2\n")
    snap.wrote()
    (ws / "private.txt").write_text("the user's\n")  # while the run waits on the model
    (ws / "theirs.txt").write_text("made by the user\n")
    with snap.program():  # a program of the run
        (ws / "out.txt").write_text("a program's\n")
        (ws / "run.sh").chmod(0o644)
    (ws / "lib/mod.py").write_text("X = 3\n")  # the user again, on Codur's file...
    snap.note("lib/mod.py")  # ...which Codur then writes once more
    (ws / "lib/mod.py").write_text("X = 4\n")
    snap.wrote()
    (ws / "link").unlink()  # the user, after the last look
    assert snap.finish("done") == [
        "lib/mod.py", "link", "out.txt", "private.txt", "run.sh", "theirs.txt"
    ]  # fmt: skip
    record = History(state_root(), ws).records()[0]
    assert record.foreign == ["lib/mod.py", "link", "private.txt", "theirs.txt"]
    with pytest.raises(UndoRefused, match="by someone other than the run .*: lib/mod.py, link"):
        commands.undo(Workspace(ws), config, None, False, IO())
    assert (ws / "private.txt").read_text() == "the user's\n"
    assert commands.undo(Workspace(ws), config, None, True, IO()) == 0
    assert state(ws) == before


def test_codur_never_writes_over_a_change_made_while_it_worked(ws: Path) -> None:
    """The user edits a file while the run waits on the model: the edit made from the
    file as the run read it is refused (it would have thrown the user's change away,
    which no snapshot held), the user's text stays; an edit made from their version
    then goes through, and undo names the file as theirs."""
    config, snap = start(ws)
    bus = EventBus()
    refused: list[str] = []
    bus.subscribe(lambda e: refused.append(e.data["reason"]) if e.kind == "edit.refused" else None)
    changes = Changes(Workspace(ws), bus, Gate("full-auto", bus=bus), snapshot=snap)
    (ws / "lib/mod.py").write_text("X = 1\n# the user's line\n")  # while the model writes
    with pytest.raises(ScopeError, match="lib/mod.py was changed during the run by someone"):
        changes.write("lib/mod.py", "X = 2\n", by="coder")
    assert (ws / "lib/mod.py").read_text() == "X = 1\n# the user's line\n"
    assert refused and "did not write over it" in refused[0]
    changes.write("lib/mod.py", "X = 2\n# the user's line\n", by="coder")  # from theirs
    (ws / "lib/mod.py").write_text("X = 2\n# edited again\n")  # the user, again...
    with snap.program():  # ...then a program of the run: its look takes their change in
        pass
    with pytest.raises(ScopeError, match="by someone other than Codur"):  # still told
        changes.write("lib/mod.py", "X = 3\n# the user's line\n", by="coder")
    assert (ws / "lib/mod.py").read_text() == "X = 2\n# edited again\n"
    assert snap.finish("done") == ["lib/mod.py"]
    assert History(state_root(), ws).records()[0].foreign == ["lib/mod.py"]


@pytest.mark.slow
def test_undo_makes_again_the_empty_folders_the_run_deleted(ws: Path) -> None:
    """A snapshot holds the folders without files too (in git, its commit message names
    them): undo makes again the empty folders the run deleted, with the folders in them
    and one holding only ignored files, and removes an empty one the run made."""
    (ws / "empty").mkdir()
    (ws / "nested/deeper/deepest").mkdir(parents=True)
    (ws / "lib/empty_too").mkdir()
    (ws / "cache/__pycache__").mkdir(parents=True)  # holds only what snapshots leave out
    (ws / "cache/__pycache__/m.pyc").write_bytes(b"\0")
    before = state(ws)
    config, snap = start(ws)
    assert {p for p, e in snap.start.items() if e.is_folder} == {
        "cache", "empty", "lib/empty_too", "nested", "nested/deeper", "nested/deeper/deepest"
    }  # fmt: skip
    with snap.program():
        for folder in ("empty", "nested/deeper/deepest", "nested/deeper", "nested"):
            (ws / folder).rmdir()
        (ws / "lib/empty_too").rmdir()
        (ws / "made/by/run").mkdir(parents=True)
    assert snap.finish("done") == [
        "empty", "lib/empty_too", "made", "made/by", "made/by/run", "nested", "nested/deeper",
        "nested/deeper/deepest",
    ]  # fmt: skip
    assert commands.undo(Workspace(ws), config, None, False, IO()) == 0
    assert state(ws) == before


def test_an_undo_stopped_by_a_signal_is_recorded_interrupted(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe's find: an undo stopped by Ctrl-C or SIGTERM was listed as `killed`, as if
    its process had died unseen; a task run stopped the same way is `interrupted`."""
    config, snap = start(ws)
    with snap.program():  # a program of the run changes it
        (ws / "lib/mod.py").write_text("X = 2\n")
    snap.finish("done")

    def stopped(*args: object) -> None:
        raise KeyboardInterrupt  # as the signal handler raises it, mid-undo

    monkeypatch.setattr(commands, "apply_undo", stopped)
    with pytest.raises(KeyboardInterrupt):
        commands.undo(Workspace(ws), config, None, False, IO())
    undo = History(state_root(), ws).records()[0]
    assert undo.undo_of == "r1" and undo.status == "interrupted" and undo.ended


def test_undo_puts_back_files_a_line_ending_rule_or_filter_touches_byte_for_byte(
    ws: Path,
) -> None:
    """A reviewer's find: reading every saved copy in one `git cat-file --batch --filters`
    took the size git gives before the filter, so a CRLF file came back short (its last
    CR LF cut) and several files went out of step. Files a rule touches are read one by
    one; the others in one batch, with links and plain files side by side."""
    (ws / ".gitattributes").write_text("*.crlf eol=crlf\n")
    for n in range(4):
        (ws / f"f{n}.crlf").write_bytes(b"line one\r\nline two\r\n")
        (ws / f"p{n}.txt").write_bytes(b"plain %d\n" % n)
    before = state(ws)
    config, snap = start(ws)
    with snap.program():
        for n in range(4):
            (ws / f"f{n}.crlf").write_bytes(b"changed\n")
            (ws / f"p{n}.txt").write_bytes(b"changed\n")
        (ws / "link").unlink()
        (ws / "link").symlink_to("lib/mod.py")
    snap.finish("done")
    assert commands.undo(Workspace(ws), config, None, False, IO()) == 0
    assert state(ws) == before
