"""The debug log lives in Codur's own folder, out of git's way, and stays bounded."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import FIXED, LOG, ROOT, buggy_folder, debug_log, run_cli, scripted_profile, whole_file

from codur.log import rotated


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


def runs_in(log: Path) -> list[str]:
    """The run ids of the log's start records, in order."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    return [r["run"] for r in records if r["event"] == "run.start"]


@pytest.mark.slow
def test_a_run_leaves_nothing_untracked_and_its_trace_reads(tmp_path: Path) -> None:
    """After a run in a git repository only the file it fixed shows in `git status`: the
    log is in `.codur/` (ignored by the `.gitignore` Codur puts there), where the docs say,
    and `codur trace` draws the run from it."""
    root = buggy_folder(tmp_path / "repo")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "bug")
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    done = run_cli([*flags, "fix @main.py"], cwd=root, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(root, "status", "--porcelain", "--untracked-files=all").splitlines() == [
        " M main.py"
    ]
    assert f"`{LOG}`" in (ROOT / "docs" / "configuration.md").read_text()
    assert f"`{LOG}`" in (ROOT / "docs" / "trace.md").read_text()
    [run_id] = runs_in(debug_log(root))
    trace = run_cli(["trace"], cwd=root)
    assert trace.returncode == 0 and trace.stdout.startswith(f"run {run_id}"), trace.stderr


@pytest.mark.slow
def test_a_full_log_moves_aside_and_trace_still_finds_its_runs(tmp_path: Path) -> None:
    """A run that finds the log `log.max_bytes` large moves it to `debug.log.1` first:
    the log holds that run alone, the older runs are one file back, and `codur trace`
    finds a run in either."""
    root = buggy_folder(tmp_path / "work")
    flags = ["--no-model", "-o", "log.max_bytes=1", "-o", "repair.enabled=false"]
    for _ in range(2):
        run_cli([*flags, "fix @main.py"], cwd=root, timeout=600)
    [first], [second] = runs_in(rotated(debug_log(root))), runs_in(debug_log(root))
    assert first != second
    for run_id in (first, second):
        trace = run_cli(["trace", run_id], cwd=root)
        assert trace.returncode == 0 and trace.stdout.startswith(f"run {run_id}"), trace.stderr
