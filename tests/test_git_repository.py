"""The repository a workspace lies in, as git's records vouch for it (codur.sandbox.
repository): a `.git` a program planted in an earlier run, naming another repository,
is used neither by the git tools nor by Codur's snapshots; pathspec magic cannot reach
past a subfolder workspace."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from codur.config import load_config
from codur.events import EventBus
from codur.sandbox.confine import landlock_unavailable
from codur.sandbox.repository import repository
from codur.session import Session
from codur.tools.registry import invoke
from codur.ui import IO
from codur.undo import commands, state_root
from codur.undo.nofollow import Refused, put_file, remove_file
from codur.undo.records import History
from codur.undo.restore import apply_undo, plan_undo
from codur.undo.snapshot import begin, open_store
from codur.undo.store import SnapshotError
from codur.workspace import Workspace

NO_LANDLOCK = landlock_unavailable()


@pytest.fixture(autouse=True)
def _outside_any_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git looks no higher than the test's folder (which may lie in someone's repository);
    /dev/shm is where no repository is trusted, so the tests cannot run there."""
    if Path("/dev/shm") in tmp_path.resolve().parents:
        pytest.skip("the temporary folder is under /dev/shm")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.resolve()))


def _git(root: Path, *args: str) -> str:
    ident = ["-c", "user.name=U", "-c", "user.email=u@example.invalid"]
    done = subprocess.run(["git", "-C", str(root), *ident, *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _repo(root: Path, files: dict[str, str]) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "the user's work")
    return root


def _session(work: Path) -> Session:
    config = load_config(work, overrides=["approval.mode=full-auto"], environ={}).config
    return Session(config, Workspace(work), EventBus())


def test_ordinary_subfolder_worktree_and_submodule_layouts_are_vouched_for(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main", {"sub/a.py": "a\n"})
    linked = tmp_path / "linked"
    _git(main, "worktree", "add", "-q", str(linked))
    for work, git_dir in ((main, main / ".git"), (main / "sub", main / ".git")):
        found = repository(work, 30)
        assert found is not None and (found.git_dir, found.top) == (git_dir, main)
    found = repository(linked, 30)
    assert found is not None and found.common_dir == main / ".git" and found.top == linked
    assert found.git_dir.parent == main / ".git" / "worktrees"
    assert repository(tmp_path, 30) is None
    bare = tmp_path / "project.bare"
    subprocess.run(["git", "clone", "-q", "--bare", str(main), str(bare)], check=True)
    _git(bare, "worktree", "add", "-q", str(tmp_path / "from-bare"))
    found = repository(tmp_path / "from-bare", 30)
    assert found is not None and found.common_dir == bare
    library = _repo(tmp_path / "library", {"lib.py": "x\n"})
    _git(main, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    found = repository(main / "lib", 30)
    assert found is not None and found.git_dir == main / ".git/modules/lib"
    assert found.top == main / "lib"
    (tmp_path / "mine").mkdir()  # the submodule's records name another checkout
    (tmp_path / "mine/.git").write_text(f"gitdir: {main}/.git/modules/lib\n")
    assert repository(tmp_path / "mine", 30) is None


def test_a_planted_git_file_naming_another_repository_is_not_used(tmp_path: Path) -> None:
    """Run 1's command left `.git` naming a worktree-like folder whose `commondir` is
    another of the user's repositories (or that repository's git folder itself): run 2
    neither commits into it nor keeps snapshots there."""
    other = _repo(tmp_path / "other", {"precious.txt": "mine\n"})
    before = _git(other, "for-each-ref")
    for plant in ("worktree", "gitdir"):
        work = tmp_path / plant
        work.mkdir()
        (work / "a.py").write_text("x = 1\n")
        if plant == "worktree":
            (work / ".wt").mkdir()
            (work / ".wt/HEAD").write_text("ref: refs/heads/main\n")
            (work / ".wt/commondir").write_text(f"{other}/.git\n")
            (work / ".git").write_text(f"gitdir: {work}/.wt\n")
        else:
            (work / ".git").write_text(f"gitdir: {other}/.git\n")
        assert repository(work, 30) is None
        session = _session(work)
        assert session.sandbox.repository is None
        assert open_store(session.ws, session.config).kind == "files"
        ctx = session.tool_context()
        staged = invoke("git_stage_files", {"paths": ["a.py"]}, ctx)
        assert not staged.ok and "records vouch for" in staged.output
    assert _git(other, "for-each-ref") == before
    assert _git(other, "status", "--short") == ""


def test_pathspec_magic_stays_in_a_subfolder_workspace(tmp_path: Path) -> None:
    main = _repo(tmp_path / "repo", {"pkg/a.py": "a\n", "secret.txt": "token=1\n"})
    (main / "secret.txt").write_text("token=2\n")
    ctx = _session(main / "pkg").tool_context()
    assert "token" not in invoke("git_diff", {"path": ":/secret.txt"}, ctx).output
    assert "token" not in invoke("git_diff", {}, ctx).output
    assert "secret" not in invoke("git_status", {}, ctx).output
    invoke("git_stage_files", {"paths": [":(top)secret.txt"]}, ctx)
    assert _git(main, "diff", "--cached", "--name-only") == ""


@pytest.mark.skipif(NO_LANDLOCK is not None, reason=f"no Landlock: {NO_LANDLOCK}")
def test_a_repository_planted_in_an_earlier_run_runs_its_filters_confined(tmp_path: Path) -> None:
    """Run 1's command made the workspace a repository whose config has a clean filter
    writing outside it: run 2's snapshot (git add) runs that filter confined, so it
    cannot, and the snapshot is still taken."""
    victim = tmp_path / "victim"
    victim.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    clean = f"sh -c 'echo pwned > {victim}/pwned; cat'"
    _git(work, "config", "filter.x.clean", clean)
    (work / ".gitattributes").write_text("* filter=x\n")
    session = _session(work)
    snapshot = begin(
        session.ws, session.config, session.run_id, "t", session.bus, box=session.sandbox
    )
    assert snapshot.store.kind == "git" and "a.py" in snapshot.start
    assert list(victim.iterdir()) == []


def test_worktree_records_that_vouch_for_another_folder_are_not_used(tmp_path: Path) -> None:
    """A `.git` naming a real worktree's git folder of another repository (its `gitdir`
    names that worktree), or a fake worktree in /dev/shm (writable by every confined
    program) whose `commondir` is that repository: neither is used, and a run says so."""
    other = _repo(tmp_path / "other", {"precious.txt": "mine\n"})
    _git(other, "worktree", "add", "-q", str(tmp_path / "theirs"))
    work = tmp_path / "work"
    work.mkdir()
    (work / ".git").write_text(f"gitdir: {other}/.git/worktrees/theirs\n")
    assert repository(work, 30) is None
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        fake = Path(tempfile.mkdtemp(dir=shm))
        try:
            (fake / "HEAD").write_text("ref: refs/heads/main\n")
            (fake / "commondir").write_text(f"{other}/.git\n")
            (fake / "gitdir").write_text(f"{work}/.git\n")
            (work / ".git").write_text(f"gitdir: {fake}\n")
            assert repository(work, 30) is None
            session = _session(work)
            seen: list[str] = []
            session.bus.subscribe(lambda e: seen.append(e.data.get("message", "")))
            assert session.sandbox.repository is None
            assert any("is not used: git's own records do not vouch" in m for m in seen)
        finally:
            shutil.rmtree(fake)


def test_dropping_a_snapshot_ref_never_deletes_what_it_points_at(tmp_path: Path) -> None:
    """A snapshot ref turned into a symbolic ref to the user's branch (by a program
    writing `.git` where it could): pruning deletes the ref, not the branch."""
    main = _repo(tmp_path / "main", {"a.py": "a\n"})
    session = _session(main)
    store = open_store(session.ws, session.config, box=session.sandbox)
    _git(main, "symbolic-ref", "refs/codur/runs/r1", "refs/heads/main")
    store.drop("r1")
    assert _git(main, "for-each-ref", "--format=%(refname)") == "refs/heads/main\n"


def test_a_link_left_at_the_private_index_is_never_written_through(tmp_path: Path) -> None:
    main = _repo(tmp_path / "main", {"a.py": "a\n"})
    session = _session(main)
    store = open_store(session.ws, session.config, box=session.sandbox)
    index = store._index("r2")
    index.parent.mkdir(parents=True)
    index.symlink_to(tmp_path / "planted")
    with pytest.raises(SnapshotError, match="private index"):
        store.take("r2")
    assert not (tmp_path / "planted").exists()


def test_undo_removes_nothing_through_a_folder_that_became_a_link(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.txt").write_text("theirs\n")
    session = _session(root)
    snapshot = begin(session.ws, session.config, session.run_id, "t", session.bus)
    (root / "d").mkdir()
    (root / "d/x.txt").write_text("theirs\n")  # made in the run
    snapshot.finish("done", 0)
    plan = plan_undo(snapshot.store, snapshot.record)
    assert plan.remove == ["d/x.txt"]
    shutil.rmtree(root / "d")
    (root / "d").symlink_to(elsewhere)
    problems = apply_undo(root, snapshot.store, plan)
    assert problems == {"d/x.txt": "d/x.txt: d is no longer a folder; left as it is"}
    assert (elsewhere / "x.txt").read_text() == "theirs\n"


SWAP = """#!/bin/sh
if [ -d d ] && [ ! -L d ]; then mv d d.old; ln -s {victim} d; fi
cat
"""


@pytest.mark.skipif(NO_LANDLOCK is not None, reason=f"no Landlock: {NO_LANDLOCK}")
def test_undo_writes_nothing_through_a_folder_a_filter_swaps_for_a_link(tmp_path: Path) -> None:
    """A repository a program made (an earlier run) has a smudge filter that, while undo
    reads a file's old content, replaces its folder with a link to a folder outside: the
    file is not put back there, and undo says so."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keys").write_text("the user's own\n")
    work = tmp_path / "work"
    (work / "d").mkdir(parents=True)
    (work / "d/keys").write_text("old\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / ".git/swap.sh").write_text(SWAP.format(victim=victim))
    (work / ".git/swap.sh").chmod(0o755)
    _git(work, "config", "filter.x.smudge", str(work / ".git/swap.sh"))
    _git(work, "config", "filter.x.clean", "cat")
    (work / ".gitattributes").write_text("d/* filter=x\n")
    session = _session(work)
    snapshot = begin(
        session.ws, session.config, session.run_id, "t", session.bus, box=session.sandbox
    )
    assert snapshot.store.kind == "git"
    (work / "d/keys").write_text("changed\n")
    snapshot.finish("done", 0)
    plan = plan_undo(snapshot.store, snapshot.record)
    problems = apply_undo(work, snapshot.store, plan)
    assert (work / "d").is_symlink(), "the filter did not run: the test shows nothing"
    assert problems == {"d/keys": "d/keys: d is no longer a folder; left as it is"}
    assert (victim / "keys").read_text() == "the user's own\n"


@pytest.mark.parametrize("path", ["../out.txt", "/abs/out.txt", "a/../../out.txt", ".git/x", ""])
def test_no_path_outside_the_workspace_is_written_or_removed(tmp_path: Path, path: str) -> None:
    """A snapshot's records name a path (a tree an index a program wrote can hold):
    nothing but a plain path inside the workspace is put back or removed."""
    root = tmp_path / "work"
    root.mkdir()
    (tmp_path / "out.txt").write_text("theirs\n")
    with pytest.raises(Refused, match="not a plain path"):
        put_file(root, path, b"EVIL\n", False, lambda existing: 0o644)
    with pytest.raises(Refused, match="not a plain path"):
        remove_file(root, path)
    assert (tmp_path / "out.txt").read_text() == "theirs\n"


def test_snapshot_git_stays_pinned_when_the_worktree_s_git_file_changes(tmp_path: Path) -> None:
    """The end snapshot of a linked worktree whose `.git` file a program pointed at a
    repository it made: git still records into the worktree's own repository."""
    main = _repo(tmp_path / "main", {"a.py": "a\n"})
    linked = tmp_path / "linked"
    _git(main, "worktree", "add", "-q", str(linked))
    session = _session(linked)
    snapshot = begin(
        session.ws, session.config, session.run_id, "t", session.bus, box=session.sandbox
    )
    planted = tmp_path / "planted"
    subprocess.run(["git", "init", "-q", str(planted)], check=True)
    (linked / ".git").write_text(f"gitdir: {planted}/.git\n")
    (linked / "a.py").write_text("b\n")
    assert snapshot.finish("done", 0) == ["a.py"]
    refs = _git(main, "for-each-ref", "--format=%(refname)", "refs/codur/")
    assert refs.split() == [f"refs/codur/runs/{session.run_id}"]
    assert _git(planted, "for-each-ref") == ""


def test_an_undo_that_restored_nothing_leaves_the_run_to_undo(tmp_path: Path) -> None:
    root = tmp_path / "work"
    (root / "d").mkdir(parents=True)
    (root / "d/x.txt").write_text("old\n")
    (tmp_path / "elsewhere").mkdir()
    session = _session(root)
    snapshot = begin(session.ws, session.config, session.run_id, "t", session.bus)
    (root / "d/x.txt").write_text("new\n")
    snapshot.finish("done", 0)
    shutil.rmtree(root / "d")
    (root / "d").symlink_to(tmp_path / "elsewhere")
    assert commands.undo(Workspace(root), session.config, None, True, IO()) == 4
    assert not (tmp_path / "elsewhere/x.txt").exists()
    records = History(state_root(), root.resolve()).records()
    assert [r.undone_by for r in records if r.run_id == session.run_id] == [""]


def test_a_sparse_index_is_not_copied_and_a_link_to_a_nul_name_is_refused(tmp_path: Path) -> None:
    """A 1 GB sparse `.git/index` a program left (no disk, until copied): the snapshot
    neither copies it nor leaves anything behind; a snapshot entry for a link whose
    target holds NUL is refused, not a crash."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.py").write_text("a\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    with open(work / ".git/index", "wb") as index:
        index.truncate(1 << 30)
    session = _session(work)
    snapshot = begin(
        session.ws, session.config, session.run_id, "t", session.bus, box=session.sandbox
    )
    assert "a.py" in snapshot.start
    left = [p for p in state_root().rglob("*") if p.is_file() and p.stat().st_size > 1 << 20]
    assert left == []
    with pytest.raises(Refused, match="NUL"):
        put_file(work, "link", b"a\0b", True, lambda existing: 0o644)
