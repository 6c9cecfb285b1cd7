"""Fault injection, the files' side: edits naming paths outside the workspace, odd files
(non-UTF-8, FIFOs, secrets, huge), a killed write, a closed output. Real `codur`
processes; each case ends with its documented exit code and an end record."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import codur, ended, records, workdir
from helpers import FIXED, ROOT, debug_log, scripted_profile, whole_file

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

LATIN1 = "caf\xe9 = 'cr\xe8me'\n".encode("latin-1")


def refused(work: Path) -> list[tuple[str, str]]:
    return [(r["path"], r["reason"]) for r in records(work) if r["event"] == "scope.refused"]


def test_edits_outside_the_workspace_are_refused_and_fed_back(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("SAFE = 1\n")
    work = workdir(tmp_path)
    (work / "link.py").symlink_to(outside / "x.py")
    replies = [
        whole_file("../outside/x.py", "SAFE = 0\n"),
        whole_file(str(outside / "x.py"), "SAFE = 0\n"),
        whole_file("link.py", "SAFE = 0\n"),
        f"{outside / 'passwd'}\n```\nroot::0:0:root:/root:/bin/sh\n```\n",  # no extension
        whole_file("main.py", FIXED),
    ]
    flags = [*scripted_profile(tmp_path, replies), "-o", "runtime.max_iterations=6"]
    result = codur([*flags, "fix @main.py"], work)
    end = ended(result, work, 0)
    assert end["status"] == "verified" and (work / "main.py").read_text() == FIXED
    assert (outside / "x.py").read_text() == "SAFE = 1\n"
    assert not (outside / "passwd").exists()
    reasons = refused(work)
    assert [path for path, _ in reasons] == [
        "../outside/x.py",
        str(outside / "x.py"),
        "link.py",
        str(outside / "passwd"),
    ]
    assert all("outside the workspace" in reason for _, reason in reasons)


def test_an_absolute_path_inside_the_workspace_is_the_relative_one(tmp_path: Path) -> None:
    work = workdir(tmp_path, {"hello.py": "print('hello')\n"})
    reply = f"{work / 'hello.py'}\n```python\nprint('hi')\n```\n"  # a file not shown
    no_test = "No test."  # asked for a test first: nothing in the folder checks the task
    script = ["{}", '{"action": "delegate"}', no_test, reply]
    check_mode = ["-o", "planning.mode=check"]  # the check-driven loop: no model verifier
    result = codur(
        [*scripted_profile(tmp_path, script), *check_mode, "make the greeting say hi"], work
    )
    end = ended(result, work, 1)  # changed, and nothing could check it
    assert (
        end["files_changed"] == ["hello.py"] and (work / "hello.py").read_text() == "print('hi')\n"
    )
    assert codur(["undo"], work).returncode == 0  # the snapshot has it, by its relative path
    assert (work / "hello.py").read_text() == "print('hello')\n"


def test_a_non_utf8_file_is_not_edited(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    (work / "legacy.py").write_bytes(LATIN1)
    replies = [whole_file("legacy.py", "cafe = 1\n"), whole_file("main.py", FIXED)]
    result = codur([*scripted_profile(tmp_path, replies), "fix @main.py"], work)
    ended(result, work, 0)
    assert (work / "legacy.py").read_bytes() == LATIN1
    assert refused(work) == [
        ("legacy.py", "cannot read legacy.py: not UTF-8 text; Codur edits only UTF-8 text files")
    ]


def test_a_fifo_named_py_never_blocks(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    os.mkfifo(work / "pipe.py")
    result = codur(["--no-model", "-o", "repair.enabled=true", "fix the program"], work, timeout=60)
    ended(result, work, 0)  # the repair search fixed main.py; the FIFO was left alone
    ref = codur(["--no-model", "fix @pipe.py"], work, timeout=60)
    ended(ref, work, 2, error="@pipe.py: not a regular file")


@pytest.mark.parametrize("name", [".env", "secrets/.env.local", "deploy.pem"])
def test_secrets_files_are_never_read(tmp_path: Path, name: str) -> None:
    work = workdir(tmp_path)
    (work / name).parent.mkdir(parents=True, exist_ok=True)
    (work / name).write_text("OPENAI_API_KEY=sk-live-0123456789abcdef\n")
    result = codur([*scripted_profile(tmp_path, []), f"fix @{name}"], work)
    ended(result, work, 2, error=f"@{name} looks like a secrets file")
    assert "sk-live" not in debug_log(work).read_text()
    explain = codur([*scripted_profile(tmp_path, []), f"explain {name}"], work)
    ended(explain, work, 2, error="looks like a secrets file")


def test_a_huge_reference_is_refused(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    (work / "data.txt").write_text("x" * 1_500_000)
    result = codur([*scripted_profile(tmp_path, []), "summarize @data.txt"], work)
    ended(result, work, 2, error="@data.txt is 1,500,000 bytes; a file given with @ may be")
    assert "tools.max_ref_bytes" in result.stderr


def test_a_huge_python_reference_is_refused_before_anything_parses_it(tmp_path: Path) -> None:
    """A 3 MB module given with @ was parsed whole (scope, derived checks, entry point:
    seconds and gigabytes; 48 MB took the machine's memory) before its size was checked."""
    work = workdir(tmp_path)
    (work / "big.py").write_text("x = 1\n" * 300_000)
    result = codur([*scripted_profile(tmp_path, []), "fix @big.py"], work)
    ended(result, work, 2, error="@big.py is 1,800,000 bytes; a file given with @ may be")
    events = [json.loads(line)["event"] for line in debug_log(work).read_text().splitlines()]
    assert "interpreter" in events and "scope" not in events


def test_json_output_into_head_exits_quietly(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = f"{sys.executable} -m codur --json --no-model 'fix @main.py' | head -1"
    done = subprocess.run(
        ["bash", "-c", f"{command}; echo status=${{PIPESTATUS[0]}} >&2"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(done.stdout)["event"] == "run.start"
    assert done.stderr.strip().splitlines() == ["status=141"], done.stderr
    end = records(work)[-1]
    assert end["status"] == "interrupted" and end["signal"] == "SIGPIPE"


@pytest.mark.parametrize("command", [["config", "show"], ["profiles"]])
def test_any_command_whose_output_is_closed_exits_141(tmp_path: Path, command: list) -> None:
    """Not only a run: `codur config show | head -1` exited 1 (Rich's own exit for a closed
    pipe), not the documented 141 (a docs probe). The pipe is closed before the command
    writes, so its first write fails."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "codur", *command],
        cwd=workdir(tmp_path),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141, proc.stderr.read()
    assert proc.stderr.read() == b""


def test_leftover_temp_files_are_removed_by_the_next_run(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    stale = [work / ".main.py.999999999.ab12cd34.codur-tmp", work / ".main.py.k3j2h1g0.codur-tmp"]
    live = work / f".main.py.{os.getpid()}.zz99yy88.codur-tmp"  # a writer still running
    for path in [*stale, live]:
        path.write_text("half a file")
    result = codur(["--no-model", "read main.py"], work)
    ended(result, work, 0)
    assert not any(p.exists() for p in stale) and live.exists()
    removed = [r for r in records(work) if r["event"] == "litter.removed"]
    assert removed[0]["files"] == sorted(p.name for p in stale)


WRITER = """
import sys
from pathlib import Path
from codur.workspace import Workspace
Workspace(Path(sys.argv[1])).write_text("main.py", sys.argv[2] * 40_000_000)
"""


def test_kill_9_mid_write_leaves_old_or_new_and_no_litter(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    old = (work / "main.py").read_text()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    outcomes = set()
    rng = random.Random(14)
    for trial in range(6):
        fill = "ab"[trial % 2]
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(work), fill], env=env)
        if trial < 3:  # as soon as the temporary file is there: mid-write
            while not list(work.glob(".main.py.*.codur-tmp")) and proc.poll() is None:
                time.sleep(0.001)
        else:  # at any moment: before, during or after the write
            time.sleep(rng.uniform(0, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        text = (work / "main.py").read_text()
        assert text == old or text == fill * 40_000_000, "mixed content"
        outcomes.add("new" if text != old else "old")
        old = text
    assert "old" in outcomes
    ended(codur(["--no-model", "read expected.txt"], work), work, 0)
    assert not list(work.glob("*.codur-tmp")) and not list(work.glob(".*.codur-tmp"))
