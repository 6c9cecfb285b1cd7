"""The witness's seal: a look before or after a program is spared its snapshot scan when
the folder's stats show nothing changed, and never misses a change it would have seen."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codur.config import load_config
from codur.events import EventBus
from codur.undo import state_root
from codur.undo.gitstore import GitStore
from codur.undo.records import History
from codur.undo.seal import Seal, rule_marks, walk
from codur.undo.snapshot import begin
from codur.undo.store import SnapshotError
from codur.undo.tree import Excluded
from codur.workspace import Workspace


@pytest.fixture(params=["files", "git"])
def ws(request, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    if request.param == "git":
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "main.py").write_text("print(1)\n")
    (root / "data.txt").write_text("abc\n")
    (root / "lib").mkdir()
    (root / "lib/mod.py").write_text("X = 1\n")
    return root


def started(root: Path):
    """A run's snapshot side, its store's scans counted."""
    config = load_config(root, environ={}).config
    snap = begin(Workspace(root), config, "r1", "a run", EventBus())
    scans = []
    take = snap.store.take
    snap.store.take = lambda *a, **k: scans.append(a) or take(*a, **k)  # type: ignore[method-assign]
    return snap, scans


def foreign(root: Path) -> list[str]:
    return History(state_root(), root).records()[0].foreign


def test_looks_that_find_nothing_changed_take_no_scan(ws: Path) -> None:
    snap, scans = started(ws)
    with snap.program():  # a program that only prints
        pass
    with snap.program():
        pass
    assert scans == []
    snap.note("main.py")  # Codur's own edit: compared by content, not scanned
    (ws / "main.py").write_text("print(2)\n")
    snap.wrote()
    with snap.program():
        pass
    assert scans == []
    assert snap.finish("done") == ["main.py"]
    assert foreign(ws) == []


def test_a_change_the_stats_show_is_scanned_and_named(ws: Path) -> None:
    snap, scans = started(ws)
    (ws / "new.txt").write_text("the user's\n")  # a new file: another entry
    with snap.program():
        (ws / "out.txt").write_text("the program's\n")
    assert len(scans) == 2  # before the program (the user's file), after (the program's)
    snap.finish("done")
    assert foreign(ws) == ["new.txt"]


def test_a_same_size_change_with_its_time_put_back_is_still_seen(ws: Path) -> None:
    """A file rewritten with the same size and its mtime set back: its ctime moved (and
    its content differs), so the look scans and names it someone else's."""
    snap, scans = started(ws)
    info = (ws / "data.txt").stat()
    (ws / "data.txt").write_text("xyz\n")
    os.utime(ws / "data.txt", ns=(info.st_atime_ns, info.st_mtime_ns))
    with snap.program():
        pass
    assert scans  # seen
    snap.finish("done")
    assert foreign(ws) == ["data.txt"]


def test_a_user_change_after_codurs_write_is_theirs(ws: Path) -> None:
    snap, scans = started(ws)
    snap.note("main.py")
    (ws / "main.py").write_text("print(2)\n")
    snap.wrote()
    (ws / "main.py").write_text("print(3)\n")  # the user, same size, right after
    with snap.program():
        pass
    assert scans
    snap.finish("done")
    assert foreign(ws) == ["main.py"]


def test_the_seal_compares_stats_and_sends_racy_files_to_their_content() -> None:
    old, fresh = 10**18, 2 * 10**18
    stats = {"a.py": (0o100644, 3, old, old, 7), "d": (0o40000, 0, 0, 0, 0)}
    rules = {"/repo/.git/info/exclude": "digest", "/home/.gitconfig": None}
    seal = Seal(dict(stats), at_ns=fresh, rules=dict(rules))
    assert seal.to_compare(dict(stats), rules) == []  # old files, same stats: nothing to read
    moved = {**stats, "a.py": (0o100644, 3, old, old + 1, 7)}  # its ctime moved
    assert seal.to_compare(moved, rules) is None
    assert seal.to_compare({**stats, "b.py": stats["a.py"]}, rules) is None  # a new entry
    assert seal.to_compare(dict(stats), {**rules, "/home/.gitconfig": "made"}) is None
    racy = Seal(dict(stats), at_ns=old + 1, rules=dict(rules))  # a.py changed just before
    assert racy.to_compare(dict(stats), rules) == ["a.py"]
    seal.wrote({"a.py": (0o100644, 4, fresh, fresh, 8)})
    assert seal.to_compare({**stats, "a.py": (0o100644, 4, fresh, fresh, 8)}, rules) == ["a.py"]


def test_the_walk_leaves_out_the_excluded_and_gives_up_past_its_limit(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/HEAD").write_text("ref\n")
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub/b.txt").write_text("b\n")
    (tmp_path / "sub/log.txt").write_text("l\n")
    skip = Excluded(frozenset({".git"}), frozenset({"sub/log.txt"}))
    assert sorted(walk(tmp_path, skip) or {}) == ["a.txt", "sub", "sub/b.txt"]
    assert walk(tmp_path, skip, most=2) is None
    os.mkfifo(tmp_path / "pipe")
    assert walk(tmp_path, skip) is None  # an entry the seal does not follow


@pytest.mark.parametrize("where", ["info/exclude", "above"])
def test_a_rule_outside_the_folder_that_stops_ignoring_a_file_is_seen(
    tmp_path: Path, monkeypatch, where: str
) -> None:
    """What git snapshots depends on files the walk does not see (.git/info/exclude, a
    .gitignore above a workspace in a subfolder): a change there means a scan, so a file
    the user had before the run, ignored then, is theirs, not the run's."""
    monkeypatch.setattr("codur.undo.seal.RACY_NS", 0)  # trust every stat
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    root = repo if where == "info/exclude" else repo / "app"
    root.mkdir(exist_ok=True)
    rule = repo / (".git/info/exclude" if where == "info/exclude" else ".gitignore")
    rule.write_text("*.local\n")
    (root / "main.py").write_text("print(1)\n")
    (root / "notes.local").write_text("the user's, there before the run\n")
    snap, scans = started(root)
    assert "notes.local" not in snap.start
    rule.write_text("")  # the user stops ignoring it while the run waits on the model
    with snap.program():
        (root / "out.txt").write_text("the program's\n")
    assert scans
    snap.finish("done")
    assert foreign(root) == ["notes.local"]


@pytest.mark.parametrize("name", ["out.txt\r", '"draft"'])
def test_a_file_named_like_a_quoted_or_crlf_line_is_still_followed(
    tmp_path: Path, name: str
) -> None:
    """git's --stdin-paths reads a trailing CR as a line end and a leading quote as a
    C-quoted name: such a file, just made (so compared by content), is hashed on its own
    and the witness still sees the user's later change."""
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "data.txt").write_text("abc\n")
    events: list = []
    bus = EventBus()
    bus.subscribe(events.append)
    config = load_config(root, environ={}).config
    snap = begin(Workspace(root), config, "r1", "a run", bus)
    with snap.program():
        (root / name).write_text("made by a program\n")
    with snap.program():  # only prints
        pass
    (root / "data.txt").write_text("xyz\n")  # the user
    with snap.program():
        pass
    snap.finish("done")
    warned = [e.data["message"] for e in events if e.kind == "warning"]
    assert not [w for w in warned if "cannot follow" in w]  # the witness was never blind
    assert foreign(root) == ["data.txt"]


def test_a_config_file_git_includes_is_a_rule_file_too(tmp_path: Path, monkeypatch) -> None:
    """An excludes file named by a config file that ~/.gitconfig includes: when the user
    stops naming it there, a file it ignored is seen (it was the user's before the run)."""
    monkeypatch.setattr("codur.undo.seal.RACY_NS", 0)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    (home / "ignored").write_text("*.local\n")
    (home / "extra.inc").write_text(f"[core]\n\texcludesFile = {home / 'ignored'}\n")
    (home / ".gitconfig").write_text(f"[include]\n\tpath = {home / 'extra.inc'}\n")
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "notes.local").write_text("the user's, there before the run\n")
    snap, scans = started(root)
    assert "notes.local" not in snap.start
    (home / "extra.inc").write_text("")  # the included file no longer names it
    with snap.program():
        (root / "out.txt").write_text("the program's\n")
    assert scans
    snap.finish("done")
    assert foreign(root) == ["notes.local"]


def test_an_excludes_file_named_during_the_run_is_watched_from_then_on(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr("codur.undo.seal.RACY_NS", 0)
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git/info/exclude").write_text("*.local\n")
    (root / "notes.local").write_text("the user's, there before the run\n")
    snap, scans = started(root)
    later = tmp_path / "later.ignore"  # the user moves the rule to a new excludes file
    later.write_text("*.local\n")
    subprocess.run(["git", "config", "core.excludesFile", str(later)], cwd=root, check=True)
    (root / ".git/info/exclude").write_text("")
    with snap.program():  # a scan: nothing changed in what git holds
        pass
    later.write_text("")  # then stops ignoring it there
    with snap.program():
        (root / "out.txt").write_text("the program's\n")
    snap.finish("done")
    assert foreign(root) == ["notes.local"]


def test_git_failing_to_name_its_rule_files_leaves_the_run_unsealed(
    tmp_path: Path, monkeypatch
) -> None:
    def broken(self) -> list[Path]:
        raise SnapshotError("git config timed out")

    monkeypatch.setattr(GitStore, "rule_files", broken)
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "main.py").write_text("print(1)\n")
    snap, scans = started(root)  # the run still starts, with its git snapshot
    assert snap.store.kind == "git"
    with snap.program():
        pass
    assert len(scans) == 2  # no seal: each look scans, as before
    assert snap.finish("done") == []


def test_a_rule_file_that_is_a_device_is_not_read() -> None:
    marks = rule_marks([Path("/dev/zero"), Path("/no/such/file")])
    assert marks["/dev/zero"].startswith("not a file")
    assert marks["/no/such/file"] is None


def test_codurs_write_to_a_crlf_file_under_text_auto_is_the_runs(tmp_path: Path) -> None:
    """A file committed with CRLF before `* text=auto` keeps CRLF when git adds it (its
    line-ending rules read the index); `git hash-object`, which reads none, would give
    another blob, and Codur's own write would have been named someone else's."""
    root = tmp_path / "ws"
    root.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "f.txt").write_bytes(b"a\r\nb\r\n")
    subprocess.run([*git, "add", "f.txt"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=root, check=True)
    (root / ".gitattributes").write_text("* text=auto\n")
    subprocess.run([*git, "add", ".gitattributes"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "attributes"], cwd=root, check=True)
    snap, _ = started(root)
    assert snap.store.current(["f.txt"])["f.txt"] == snap.start["f.txt"]
    snap.note("f.txt")
    (root / "f.txt").write_bytes(b"a\r\nc\r\n")
    snap.wrote()
    assert snap.finish("done") == ["f.txt"]
    assert foreign(root) == []
