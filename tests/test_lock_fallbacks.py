"""The run lock where it cannot be had as usual: a lock file we may not write (a shared
project) is locked read-only, a file system that cannot lock (ENOLCK, EOPNOTSUPP, EROFS)
runs unlocked with one warning, and threads of one process exclude each other even where
flock would let them both in (NFS). Also: arun cancelled before its run starts leaves no
record, the planner cannot pick an agent it was not offered, and recovery commands load
a config naming an unknown profile. Real folders and processes; the model is scripted."""

from __future__ import annotations

import asyncio
import errno
import fcntl
import os
import threading
from pathlib import Path

import pytest
import yaml
from helpers import (
    BUGGY,
    FIXED,
    buggy_folder,
    debug_log,
    delegate_to,
    held_by_a_thread,
    run_cli,
    run_in_process,
    whole_file,
)
from test_trust_agents import marker_program

from codur import Agent
from codur.config.trust import trust
from codur.errors import WorkspaceBusy
from codur.undo import state_root
from codur.undo.records import History
from codur.workspace import hold_workspace

QUIET = ["repair.enabled=false", "sampling.candidates=0"]


def agent_for(tmp_path: Path, root: Path) -> Agent:
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([whole_file("main.py", FIXED)]))
    return Agent(cwd=root, model="scripted/s", script=str(script), overrides=QUIET)


def refuse_lock_writes(monkeypatch: pytest.MonkeyPatch, flag: int) -> None:
    """Opening run.lock with `flag` is refused, as for a user who may not write it."""
    real_open = os.open

    def refusing(path: str | Path, flags: int, *args: object, **kwargs: object) -> int:
        if str(path).endswith("run.lock") and flags & flag:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing)


def test_a_lock_file_that_may_not_be_written_is_locked_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = buggy_folder(tmp_path / "w")
    (root / ".codur").mkdir()
    (root / ".codur" / "run.lock").write_text("")
    refuse_lock_writes(monkeypatch, os.O_RDWR)
    assert agent_for(tmp_path, root).run("fix @main.py").is_verified
    assert (root / ".codur" / "run.lock").read_text() == ""  # its holder not written


def test_a_folder_that_may_not_be_written_and_holds_no_lock_runs_unlocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.codur` exists but may not be written, and has no run.lock yet: nothing to lock
    read-only either (a review found the run stopped with "cannot take the run lock:
    No such file or directory"); it runs unlocked with one warning."""
    root = buggy_folder(tmp_path / "w")
    (root / ".codur").mkdir()
    refuse_lock_writes(monkeypatch, os.O_CREAT)
    warned: list[str] = []
    with hold_workspace(root, warned.append):
        pass
    assert len(warned) == 1 and "running without the run lock" in warned[0], warned
    assert "could not be made" in warned[0]
    assert not (root / ".codur" / "run.lock").exists()


@pytest.mark.parametrize("code", [errno.ENOLCK, errno.EOPNOTSUPP])
def test_a_file_system_that_cannot_lock_runs_unlocked_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    root = buggy_folder(tmp_path / "w")
    real_flock = fcntl.flock

    def unsupported(fd: int, op: int) -> None:
        if op & fcntl.LOCK_NB:  # the run lock's (other locks wait their turn)
            raise OSError(code, os.strerror(code))
        real_flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", unsupported)
    warned: list[str] = []
    with hold_workspace(root, warned.append), hold_workspace(root, warned.append):
        pass
    assert len(warned) == 1 and f"running without the run lock {root / '.codur'}" in warned[0]
    assert os.strerror(code) in warned[0]
    result, events, _ = run_in_process(root, [whole_file("main.py", FIXED)])
    assert result.status == "verified"


def test_threads_of_one_process_exclude_each_other_where_flock_would_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = buggy_folder(tmp_path / "w")
    monkeypatch.setattr(fcntl, "flock", lambda fd, op: None)  # every flock succeeds
    with held_by_a_thread(root):
        with pytest.raises(WorkspaceBusy, match=rf"process {os.getpid()}"):
            agent_for(tmp_path, root).run("fix @main.py")
        assert (root / "main.py").read_text() == BUGGY
    with hold_workspace(root, print):  # let go: the table is empty again
        pass


def test_arun_cancelled_before_its_run_starts_leaves_no_record(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "w")
    agent = agent_for(tmp_path, root)
    cancel = threading.Event()
    cancel.set()
    assert agent._run_until_cancelled("fix @main.py", cancel) is None

    async def cancelled_at_once() -> None:
        run = asyncio.create_task(agent.arun("fix @main.py"))
        run.cancel()  # before its first step: the worker is never started
        with pytest.raises(asyncio.CancelledError):
            await run

    asyncio.run(cancelled_at_once())
    assert History(state_root(), root).records() == []
    assert not debug_log(root).exists() and not (root / ".codur").exists()
    assert (root / "main.py").read_text() == BUGGY


def test_the_planner_cannot_pick_an_agent_it_was_not_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "claude-ran"
    marker_program(tmp_path / "bin" / "claude", marker)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    root = buggy_folder(tmp_path / "w")
    # the task names main.py: a code task, so no classification call; with two agents
    # offered the planner is asked
    replies = [delegate_to("agent:claude_code"), whole_file("main.py", FIXED)]
    overrides = ["planning.max_retry_attempts=0", "agents.configs.reviewer.description=Reviews"]
    result, events, _ = run_in_process(
        root, replies, task="fix the sum in main.py", overrides=overrides
    )
    kinds = [e.kind for e in events]
    assert "plan.invalid" in kinds and "plan.fallback" in kinds
    invalid = next(e for e in events if e.kind == "plan.invalid")
    assert "'agent:claude_code' is not offered" in invalid.data["error"]
    assert result.status == "verified" and not marker.exists()


@pytest.mark.slow
def test_recovery_commands_load_a_config_naming_an_unknown_profile(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "w")
    (root / "codur.yaml").write_text(yaml.safe_dump({"llm": {"default_profile": "gone"}}))
    trust(root / "codur.yaml")  # the profile is the user's choice: the user trusted it
    listed = run_cli(["undo", "--list"], root)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "key 'llm.default_profile'" in listed.stderr and "warning" in listed.stderr
    refused = run_cli(["config", "show"], root)
    assert refused.returncode != 0 and "key 'llm.default_profile'" in refused.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("llm:\n  default_profile: [unclosed\n", "invalid YAML"),
        ("runtime:\n  max_iterations: lots\n", "key 'runtime.max_iterations'"),
    ],
)
def test_a_broken_codur_yaml_does_not_stand_between_the_user_and_undo(
    tmp_path: Path, text: str, said: str
) -> None:
    """A half-typed codur.yaml (no YAML, or a bad value) is left out of undo and diff with
    a warning naming it; a run still stops on it (exit 2)."""
    root = buggy_folder(tmp_path / "w")
    done = run_cli(["--yes", "--no-model", "fix @main.py"], root)
    assert done.returncode == 0, done.stdout + done.stderr
    fixed = (root / "main.py").read_text()
    (root / "codur.yaml").write_text(text)
    shown = run_cli(["diff"], root)
    assert shown.returncode == 0 and "--- a/main.py" in shown.stdout, shown.stderr
    traced = run_cli(["trace"], root)  # it said nothing of the file it left out
    assert traced.returncode == 0 and said in traced.stderr, traced.stdout + traced.stderr
    undone = run_cli(["undo"], root)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert said in undone.stderr and "left out for this command" in undone.stderr
    assert (root / "main.py").read_text() != fixed
    refused = run_cli(["--no-model", "fix @main.py"], root)
    assert refused.returncode == 2 and said in refused.stderr


def test_a_folder_codur_may_not_write_in_stops_the_run_with_exit_11(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project folder without write permission (`.codur` cannot be made): Codur could
    write no fix either, so the run stops with exit 11, not 2 (a hostile probe)."""
    from codur.errors import CannotWrite, ExitCode

    root = buggy_folder(tmp_path / "w")
    real_mkdir = os.mkdir

    def refused(path, *args, **kwargs):
        if Path(path).name == ".codur":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", refused)
    denied = r"cannot write .*\.codur: permission denied"
    with pytest.raises(CannotWrite, match=denied) as err, hold_workspace(root, print):
        pass
    assert err.value.exit_code == ExitCode.CANNOT_WRITE


@pytest.mark.slow
def test_a_bad_value_given_to_undo_is_not_blamed_on_a_good_codur_yaml(tmp_path: Path) -> None:
    """Recovery leaves the folder's codur.yaml out only when it is at fault: a bad `-o`
    with a valid file stays a usage error (exit 2), not an internal one."""
    root = buggy_folder(tmp_path / "w")
    (root / "codur.yaml").write_text("runtime:\n  max_iterations: 3\n")
    bad = run_cli(["undo", "--list", "-o", "undo.keep_days=-1"], root)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert "key 'undo.keep_days'" in bad.stderr and "internal error" not in bad.stderr
