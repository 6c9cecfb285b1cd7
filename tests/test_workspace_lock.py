"""One run at a time: a run that may change files holds the folder (`.codur/run.lock`); a
second one stops at once with one line and exit code 9, having touched nothing, while
commands that only read go on. Real git repositories, real `codur` processes, a scripted
model."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from helpers import (
    BUGGY,
    FIXED,
    ROOT,
    debug_log,
    held_by_a_thread,
    run_cli,
    scripted_profile,
    whole_file,
    write_files,
)
from test_ask import ANSWER, FINISH, LOOP_FLAGS, PLAN, QUESTION, SEARCH, SUMMARY
from test_code_search import FILES

from codur import Agent
from codur.errors import ExitCode, WorkspaceBusy, WorkspaceError
from codur.workspace import hold_workspace

SLEEPER = "import os, time\nwhile os.path.exists({hold!r}):\n    time.sleep(0.05)\nprint(10)\n"
"""A program whose check keeps a run busy while the file `hold` (outside the folder)
exists (its run is stopped long before that)."""
BUSY = re.compile(
    r"codur: error: (?P<root>.+) is busy: another Codur run \(process (?P<pid>\d+), "
    r"started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\) may change its files; "
    r"try again when it has ended"
)


def git_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    write_files(root, files)
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.name", "Codur Test"],
        ["config", "user.email", "codur@example.invalid"],
        ["config", "commit.gpgsign", "false"],
        ["add", "-A"],
        ["commit", "-q", "-m", "initial commit"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def every_file(root: Path) -> dict[str, bytes]:
    """Every file under `root`, .git and Codur's own included: byte for byte."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


@contextmanager
def held_by_another_process(root: Path) -> Iterator[int]:
    """`root` held by another process (its pid), as a run of it would hold it."""
    code = (
        "import sys\nfrom pathlib import Path\nfrom codur.workspace import hold_workspace\n"
        "with hold_workspace(Path(sys.argv[1]), print):\n"
        "    print('held', flush=True)\n    sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        yield proc.pid
    finally:
        proc.communicate(input="", timeout=30)


def refused(result: subprocess.CompletedProcess[str], root: Path, pid: int) -> None:
    """The one line and exit code 9 of a command the held folder turned away."""
    assert result.returncode == ExitCode.BUSY, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    match = BUSY.fullmatch(lines[0]) if len(lines) == 1 else None
    assert match, result.stderr
    assert (match["root"], int(match["pid"])) == (str(root), pid)


def listed(root: Path, run_id: str) -> str:
    """Run `run_id`'s status as `codur runs` lists it."""
    listing = run_cli(["runs"], root)
    row = next(line for line in listing.stdout.splitlines() if run_id in line)
    return [cell.strip() for cell in row.split("│")][2]


@pytest.mark.slow
def test_a_second_editing_run_is_refused_and_reading_goes_on(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "w", {**FILES, "main.py": BUGGY, "expected.txt": "10\n"})
    with held_by_another_process(root) as pid:
        before = every_file(root)
        flags = [*scripted_profile(tmp_path, [whole_file("main.py", FIXED)]), "-v"]
        refused(run_cli([*flags, "fix @main.py"], root), root, pid)
        refused(run_cli(["run", "--json", *flags, "fix @main.py"], root), root, pid)
        refused(run_cli(["undo"], root), root, pid)
        assert every_file(root) == before  # no snapshot, no log line, no edit, no lock note

        # reading is not held up: a question, the run lists, the config
        ask = scripted_profile(tmp_path, [PLAN, SEARCH, SUMMARY, FINISH, ANSWER], name="a")
        answered = run_cli(["ask", *ask, *LOOP_FLAGS, QUESTION], root)
        assert answered.returncode == 0, answered.stderr
        assert "cfg/loader.py:8-12" in answered.stdout
        for args in (["runs"], ["undo", "--list"], ["diff"], ["config", "show"]):
            shown = run_cli(args, root)
            assert shown.returncode != ExitCode.BUSY and "busy" not in shown.stderr, args

    # let go (the holder ended): the same run goes through
    done = run_cli([*flags, "fix @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "main.py").read_text() == FIXED
    assert (root / ".codur" / ".gitignore").read_text() == "*\n"  # Codur's own folder
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True)
    assert sorted(status.stdout.decode().splitlines()) == [" M main.py"]


@pytest.mark.slow
def test_a_run_holds_the_folder_against_resume_and_undo(tmp_path: Path) -> None:
    """A real run busy with its check holds the folder: another run and `codur undo` are
    turned away naming it; stopped, it is resumable, and `codur resume` respects a holder
    too, then goes on once the folder is free."""
    hold = tmp_path / "hold"
    hold.write_text("")
    sleeper = SLEEPER.format(hold=str(hold))
    root = git_repo(tmp_path / "w", {"main.py": sleeper, "expected.txt": "10\n"})
    first = subprocess.Popen(
        [sys.executable, "-m", "codur", "--no-model", "fix @main.py"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        log = debug_log(root)
        wait_for(lambda: log.exists() and '"tool.call"' in log.read_text())  # the check runs
        refused(run_cli(["--no-model", "fix @main.py"], root), root, first.pid)
        refused(run_cli(["undo", "--force"], root), root, first.pid)
        assert (root / "main.py").read_text() == sleeper
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=30)
    finally:
        first.kill()
    assert first.returncode == 128 + signal.SIGTERM, err
    run_id = json.loads(log.read_text().splitlines()[0])["run"]
    assert listed(root, run_id) == "interrupted"

    (root / "main.py").write_text("print(10)\n")  # changed since: not resumed
    changed = run_cli(["resume", run_id], root)
    assert changed.returncode == ExitCode.USAGE, changed.stdout + changed.stderr
    assert f"run {run_id}: changed since it stopped: main.py;" in changed.stderr
    (root / "main.py").write_text(sleeper)  # put back; its check now passes at once
    hold.unlink()
    with held_by_another_process(root) as pid:
        refused(run_cli(["resume", run_id], root), root, pid)
    assert listed(root, run_id) == "interrupted"  # not resumed: still to resume
    resumed = run_cli(["resume", run_id], root)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(log.read_text().splitlines()[-1])["status"] == "verified"


def test_runs_in_a_folder_and_a_folder_inside_it_are_kept_apart(tmp_path: Path) -> None:
    """Both may change the same files, and each would take the other's writes for a
    user's: a run in the folder above, or in one inside, is turned away (exit 9, the
    folder named); runs in two sibling folders go on side by side."""
    top = git_repo(tmp_path / "proj", {"main.py": BUGGY, "sub/main.py": BUGGY, "b/x.py": ""})
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    with held_by_another_process(top / "sub"):
        above = run_cli([*flags, "fix @main.py"], top)
        assert above.returncode == ExitCode.BUSY, above.stdout + above.stderr
        assert f"{top} is busy: another Codur run, in a folder inside {top}, " in above.stderr
        with hold_workspace(top / "b", print):  # a sibling
            pass
    with held_by_another_process(top):
        below = run_cli(["undo"], top / "sub")
        assert below.returncode == ExitCode.BUSY, below.stdout + below.stderr
        assert f"{top / 'sub'} is busy: another Codur run, in {top}, may" in below.stderr
    assert (top / "main.py").read_text() == BUGGY and (top / "sub/main.py").read_text() == BUGGY
    worktree = top / ".worktrees/x"  # a work tree of its own inside the checkout: apart
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: ../../.git/worktrees/x\n")
    with held_by_another_process(top), hold_workspace(worktree, print):
        pass
    with (  # another thread of this process: the same
        held_by_a_thread(top / "sub"),
        pytest.raises(WorkspaceBusy, match="in a folder inside"),
        hold_workspace(top, print),
    ):
        pass


def test_a_thread_of_the_same_process_is_turned_away_too(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    with held_by_a_thread(root):
        script = tmp_path / "script.yaml"
        script.write_text(yaml.safe_dump([whole_file("main.py", FIXED)]))
        agent = Agent(cwd=root, model="scripted/s", script=str(script))
        with pytest.raises(WorkspaceBusy, match=rf"process {os.getpid()}, started "):
            agent.run("fix @main.py")
        assert not debug_log(root).exists()
    with (
        hold_workspace(root, print),
        hold_workspace(root, print),
    ):  # within its own block: goes through
        pass
    assert agent.run("fix @main.py").is_verified  # let go: the run goes through


def test_the_lock_is_never_reached_through_a_symlink(tmp_path: Path) -> None:
    root, outside = tmp_path / "w", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / ".codur")
    with (
        pytest.raises(WorkspaceError, match="is a symlink or not a folder"),
        hold_workspace(root, print),
    ):
        pass
    result = run_cli(["--no-model", "fix @main.py"], root)
    assert result.returncode == ExitCode.USAGE and "cannot take the run lock" in result.stderr
    assert list(outside.iterdir()) == []

    (root / ".codur").unlink()
    (root / ".codur").mkdir()
    os.symlink(outside / "planted", root / ".codur" / "run.lock")
    with (
        pytest.raises(WorkspaceError, match="never follows a link there"),
        hold_workspace(root, print),
    ):
        pass
    assert list(outside.iterdir()) == []


def test_an_agent_whose_folder_went_away_says_so(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    agent = Agent(cwd=root, model="scripted/s", script=str(tmp_path / "none.yaml"))
    root.rmdir()
    with pytest.raises(WorkspaceError, match=rf"^{re.escape(str(root))}: no such folder$"):
        agent.run("fix @main.py")
    root.write_text("now a file")
    with pytest.raises(WorkspaceError, match="no such folder"):
        agent.run("fix @main.py")
    assert root.read_text() == "now a file"


def test_an_empty_gitignore_in_codurs_folder_is_written_again(tmp_path: Path) -> None:
    """A full disk cut `.codur/.gitignore` to 0 bytes; the folder existed from then on, so
    no later run wrote it again and `git status` listed `.codur/` (its debug log and
    memory) for good. One the user wrote is theirs."""
    root = tmp_path / "w"
    (root / ".codur").mkdir(parents=True)
    (root / ".codur" / ".gitignore").write_text("")
    with hold_workspace(root, print):
        pass
    assert (root / ".codur" / ".gitignore").read_text() == "*\n"
    (root / ".codur" / ".gitignore").unlink()
    with hold_workspace(root, print):
        pass
    assert (root / ".codur" / ".gitignore").read_text() == "*\n"
    (root / ".codur" / ".gitignore").write_text("*\n!notes.md\n")
    with hold_workspace(root, print):
        pass
    assert (root / ".codur" / ".gitignore").read_text() == "*\n!notes.md\n"
