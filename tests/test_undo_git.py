"""Snapshots and `codur undo` in a real git repository: the real CLI, a scripted model, a
program that deletes, creates and chmods files; the user's branch, index, stash and HEAD
must come out untouched."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from helpers import BUGGY, FIXED, debug_log, run_cli, scripted_profile, tool_calls, whole_file

PROGRAM = (
    "import os\n"
    "os.remove('data.csv')\n"
    "open('out.txt', 'w').write('new\\n')\n"
    "os.chmod('tool.sh', 0o644)\n"
    "open('scratch.txt', 'a').write('more\\n')\n"
    "os.makedirs('made/deep')\n"
    "open('made/deep/x.txt', 'w').write('x\\n')\n"
)


def git(repo: Path, *args: str) -> str:
    run = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return run.stdout


def repo_state(repo: Path) -> dict[str, str]:
    """What the user's git sees: HEAD, branch, index, stash, status."""
    status = [ln for ln in git(repo, "status", "--porcelain", "-uall").splitlines()]
    return {
        "head": git(repo, "rev-parse", "HEAD"),
        "branch": git(repo, "branch", "--show-current"),
        "index": git(repo, "ls-files", "-s"),
        "stash": git(repo, "stash", "list", "--format=%H %s"),
        "status": "\n".join(status),
    }


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file outside .git and Codur's own folder `.codur/` (its log too): content and mode."""
    found = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            if not rel.startswith(".codur/"):  # Codur's own
                found[rel] = (path.read_bytes(), path.stat().st_mode & 0o777)
    return found


@pytest.mark.slow
def test_undo_restores_a_program_s_changes_and_leaves_git_alone(git_repo: Path, tmp_path) -> None:
    repo = git_repo
    (repo / "main.py").write_text(BUGGY)
    (repo / "expected.txt").write_text("10\n")
    (repo / "data.csv").write_text("a,b\n1,2\n")
    (repo / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "tool.sh").chmod(0o755)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "project")
    (repo / "README.md").write_text("# stashed change\n")
    git(repo, "stash", "-q")
    (repo / "notes.txt").write_text("staged, not committed\n")
    git(repo, "add", "notes.txt")
    (repo / "notes.txt").write_text("staged, then changed again\n")
    (repo / "scratch.txt").write_text("untracked\n")
    (repo / ".gitignore").write_text("*.tmp\n")
    (repo / "cache.tmp").write_text("ignored\n")
    before_git, before_files = repo_state(repo), files(repo)

    write_and_run = tool_calls(
        ("write_file", {"path": "cleanup.py", "content": PROGRAM}),
        ("run_python_file", {"path": "cleanup.py"}),
    )
    flags = scripted_profile(tmp_path, [write_and_run, whole_file("main.py", FIXED)])
    run = run_cli([*flags, "--yes", "fix @main.py"], cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert not (repo / "data.csv").exists() and (repo / "made/deep/x.txt").exists()
    others = r"\(data\.csv, made/deep/x\.txt, out\.txt and 2 more: not by an edit\)"
    found = re.search(rf"run (\S+): 7 file\(s\) changed {others} \| undo: codur undo\n", run.stdout)
    assert found, run.stdout
    run_id = found.group(1)
    outside = "cleanup.py, data.csv, made/deep/x.txt, out.txt, scratch.txt, tool.sh"
    assert f"changed outside the code under test: {outside}\n" in run.stdout
    after = repo_state(repo)
    assert {k: after[k] for k in ("head", "branch", "index", "stash")} == {
        k: before_git[k] for k in ("head", "branch", "index", "stash")
    }
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/codur/")
    assert refs.split() == [f"refs/codur/runs/{run_id}"]

    undo = run_cli(["undo"], cwd=repo)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert f"undid run {run_id} (fix @main.py): put back 4" in undo.stdout
    assert "removed 3 the run created: cleanup.py, made/deep/x.txt, out.txt" in undo.stdout
    assert files(repo) == before_files  # content and modes, deletions undone
    assert not (repo / "made").exists()  # the folders the run created went too
    assert repo_state(repo) == before_git
    assert (repo / "tool.sh").stat().st_mode & 0o777 == 0o755


@pytest.mark.slow
def test_snapshots_need_no_identity_and_respect_the_workspace_subfolder(
    git_repo: Path, tmp_path: Path
) -> None:
    """Codur works in a subfolder of a repo whose user has no git identity: it snapshots
    only that subfolder, and a change elsewhere in the repo is no concern of undo's."""
    sub = git_repo / "pkg"
    sub.mkdir()
    (sub / "main.py").write_text(BUGGY)
    (sub / "expected.txt").write_text("10\n")
    git(git_repo, "config", "--unset", "user.name")
    git(git_repo, "config", "--unset", "user.email")
    env = {"HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1", "EMAIL": ""}
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    run = run_cli([*flags, "fix @main.py"], cwd=sub, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    (git_repo / "README.md").write_text("changed outside the workspace\n")
    listed = run_cli(["-C", "pkg", "undo", "--list"], cwd=git_repo, env=env)
    assert listed.returncode == 0 and "1: main.py" in listed.stdout
    undo = run_cli(["-C", "pkg", "undo"], cwd=git_repo, env=env)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert (sub / "main.py").read_text() == BUGGY
    assert (git_repo / "README.md").read_text() == "changed outside the workspace\n"


def test_git_snapshot_skips_the_ignore_list_and_the_log(git_repo: Path) -> None:
    from codur.config import load_config
    from codur.events import EventBus
    from codur.undo.snapshot import begin
    from codur.workspace import Workspace

    (git_repo / "__pycache__").mkdir()
    (git_repo / "__pycache__/m.cpython.pyc").write_bytes(b"\0")
    debug_log(git_repo).parent.mkdir()
    debug_log(git_repo).write_text("{}\n")
    (git_repo / "run.sh").write_text("#!/bin/sh\n")
    (git_repo / "run.sh").chmod(0o700)
    config = load_config(git_repo, environ={}).config
    snap = begin(Workspace(git_repo), config, "r1", "task", EventBus())
    assert snap.store.kind == "git"
    assert sorted(snap.start) == ["README.md", "run.sh"]
    assert snap.start["run.sh"].mode == 0o100755
    (git_repo / "new.py").write_text("print(1)\n")
    assert snap.made("new.py") == "created" and snap.made("run.sh") is None
    (git_repo / "run.sh").write_text("#!/bin/sh\necho changed\n")
    assert snap.made("run.sh") == "changed" and snap.made("run.sh", created_only=True) is None
    snap.began_ns += 10**10  # as if the run had started later: older files were not created
    assert snap.made("__pycache__/m.cpython.pyc") is None  # never snapshotted, not new
    (git_repo / "new.py").unlink()
    (git_repo / "run.sh").write_text("#!/bin/sh\n")
    debug_log(git_repo).write_text("more\n")
    (git_repo / "__pycache__/m.cpython.pyc").write_bytes(b"\1")
    assert snap.finish("done") == []  # nothing the user would undo changed
    assert git(git_repo, "for-each-ref", "refs/codur/") == ""  # no change, no ref


@pytest.mark.slow
def test_a_gitignore_listing_codur_s_log_keeps_the_git_store(
    git_repo: Path, tmp_path: Path
) -> None:
    """`*.log` in .gitignore ignores a log of the project's and a recording named `*.log`:
    the snapshots are still commits, with no fallback to copies and no warning."""
    (git_repo / ".gitignore").write_text("*.log\n")
    (git_repo / "main.py").write_text(BUGGY)
    (git_repo / "expected.txt").write_text("10\n")
    (git_repo / "app.log").write_text("{}\n")
    git(git_repo, "add", ".")
    git(git_repo, "commit", "-q", "-m", "project")
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    run = run_cli([*flags, "--record", "model.log", "fix @main.py"], cwd=git_repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "warning" not in run.stderr, run.stderr
    run_id = re.search(r"run (\S+): 1 file\(s\) changed", run.stdout).group(1)
    ref = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/codur/").split()
    assert ref == [f"refs/codur/runs/{run_id}"]  # the git store kept the run
    undo = run_cli(["undo"], cwd=git_repo)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert (git_repo / "main.py").read_text() == BUGGY


@pytest.mark.slow
def test_a_file_git_ignores_is_not_changed_since_undo_could_not_put_it_back(
    git_repo: Path, tmp_path: Path
) -> None:
    """git's snapshot leaves ignored files out (as `git stash -u`), so an edit of one could
    not be undone: the repair search's fix and the model's edit of it are both refused,
    and the run says why (it does not claim the search found no fix)."""
    repo = git_repo
    (repo / ".gitignore").write_text("main.py\n")
    (repo / "main.py").write_text(BUGGY)
    (repo / "expected.txt").write_text("10\n")
    git(repo, "add", ".gitignore", "expected.txt")
    git(repo, "commit", "-q", "-m", "project")
    time.sleep(2.1)  # older than the run by more than file times' 2 s: there before it

    searched = run_cli(["--yes", "--no-model", "fix @main.py"], cwd=repo)
    assert searched.returncode == 1, searched.stdout + searched.stderr
    assert (repo / "main.py").read_text() == BUGGY
    said = searched.stdout + searched.stderr
    assert "the repair search's fix was refused: main.py is not in this run's snapshot" in said
    assert "warning: main.py is not in this run's snapshot" in searched.stderr  # before any

    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)] * 3)
    args = [*flags, "--yes", "--max-llm-calls", "3", "-o", "repair.enabled=false", "fix @main.py"]
    edited = run_cli(args, cwd=repo)
    assert edited.returncode == 1, edited.stdout + edited.stderr
    assert (repo / "main.py").read_text() == BUGGY
    events = [json.loads(line) for line in debug_log(repo).read_text().splitlines()]
    refused = [e for e in events if e["event"] == "scope.refused"]
    assert refused and all(e["path"] == "main.py" for e in refused), refused
    assert "could not put it back" in refused[0]["reason"]


@pytest.mark.slow
def test_a_file_a_program_of_the_run_made_is_the_run_s_to_change(
    git_repo: Path, tmp_path: Path
) -> None:
    """A file that is in no start snapshot because the run made it (a program wrote it)
    is no file undo lacks a copy of: Codur may edit it, and undo removes it."""
    repo = git_repo
    (repo / "main.py").write_text(BUGGY)
    (repo / "expected.txt").write_text("10\n")
    (repo / "gen.py").write_text("open('helper.py', 'w').write('X = 1\\n')\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "project")
    time.sleep(2.1)
    steps = tool_calls(
        ("run_python_file", {"path": "gen.py"}),
        ("write_file", {"path": "helper.py", "content": "X = 2\n"}),
    )
    flags = scripted_profile(tmp_path, [steps, whole_file("main.py", FIXED)])
    task = "fix the bug so the output matches expected.txt"
    run = run_cli([*flags, "--yes", "-o", "repair.enabled=false", task], cwd=repo)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (repo / "helper.py").read_text() == "X = 2\n", run.stdout
    assert "not in this run's snapshot" not in run.stdout + run.stderr
    undo = run_cli(["undo"], cwd=repo)
    assert undo.returncode == 0 and not (repo / "helper.py").exists(), undo.stdout + undo.stderr


@pytest.mark.slow
def test_a_read_only_file_is_left_as_it_is(git_repo: Path, tmp_path: Path) -> None:
    """A file its owner may not write (`chmod a-w`) is not Codur's to change: an atomic
    write (a rename) would replace it anyway, and root would write it. The repair search's
    fix and the model's edit are both refused, and the run warns at its start."""
    repo = git_repo
    (repo / "main.py").write_text(BUGGY)
    (repo / "expected.txt").write_text("10\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "project")
    (repo / "main.py").chmod(0o444)

    searched = run_cli(["--yes", "--no-model", "fix @main.py"], cwd=repo)
    assert searched.returncode == 1, searched.stdout + searched.stderr
    assert (repo / "main.py").read_text() == BUGGY
    assert "warning: main.py is read-only: Codur leaves it as it is" in searched.stderr

    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)] * 3)
    args = [*flags, "--yes", "--max-llm-calls", "3", "-o", "repair.enabled=false", "fix @main.py"]
    edited = run_cli(args, cwd=repo)
    assert edited.returncode == 1, edited.stdout + edited.stderr
    assert (repo / "main.py").read_text() == BUGGY
    assert (repo / "main.py").stat().st_mode & 0o777 == 0o444
    events = [json.loads(line) for line in debug_log(repo).read_text().splitlines()]
    refused = [e for e in events if e["event"] == "scope.refused"]
    assert refused and all("read-only" in e["reason"] for e in refused), refused
