"""Running programs: exit codes, timeouts, output floods and memory caps are all bounded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import debug_log, run_cli

from codur.errors import ExitCode
from codur.process import DRAIN_GRACE_S, run_process

pytestmark = pytest.mark.usefixtures("both_ways")  # forked, and through child.py


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_output_and_exit_code(tmp_path: Path) -> None:
    result = run_process(
        py("import sys; print('hi'); print('oops', file=sys.stderr); sys.exit(3)"),
        tmp_path,
        timeout_s=10,
        output_limit=1000,
    )
    assert (result.stdout, result.stderr.strip(), result.exit_code) == ("hi\n", "oops", 3)
    assert not result.ok and not result.timed_out


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)"
    )
    result = run_process(py(code), tmp_path, timeout_s=0.5, output_limit=1000)
    assert result.timed_out and result.exit_code is None
    assert result.duration_s < 10


def test_output_flood_is_stopped(tmp_path: Path) -> None:
    result = run_process(
        py("while True: print('x' * 1000)"), tmp_path, timeout_s=20, output_limit=50_000
    )
    assert result.truncated and not result.timed_out
    assert len(result.stdout) == 50_000


def test_memory_cap(tmp_path: Path) -> None:
    result = run_process(
        py("x = bytearray(2_000_000_000); print('allocated')"),
        tmp_path,
        timeout_s=20,
        output_limit=1000,
        memory_limit=500_000_000,
    )
    assert result.exit_code != 0 and "allocated" not in result.stdout
    assert "MemoryError" in result.stderr


def test_stdin_is_passed(tmp_path: Path) -> None:
    result = run_process(py("print(input().upper())"), tmp_path, 10, 1000, stdin="abc\n")
    assert result.stdout == "ABC\n"


CHILD_SLEEP_S = 300
"""How long the escaped descendant would hold the program's output open."""
GUARD_S = 120
"""The test's own bound on the whole check (well under CHILD_SLEEP_S): a check that waits
for the descendant fails the test by timing out here."""
TIMEOUT_S = 2.0
"""The check's configured timeout."""

HOLDER = f"""
import os, subprocess, sys, time
from pathlib import Path
note = Path(sys.argv[1])
sleeper = ("import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); "
           "time.sleep({CHILD_SLEEP_S})")
# `setsid env -i`: a session of its own, an empty environment, our stdout and stderr
subprocess.Popen([sys.executable, "-c", sleeper, str(note)], start_new_session=True, env={{}})
while not note.is_file() or not note.read_text():
    time.sleep(0.01)
print("started", flush=True)
time.sleep(float(sys.argv[2]))
"""

CHECK = """
import json, sys
from pathlib import Path
from codur.process import run_process
timeout, folder, *command = sys.argv[1:]
r = run_process([sys.executable, *command], Path(folder), float(timeout), 10_000)
print(json.dumps({"duration_s": r.duration_s, "timed_out": r.timed_out, "stdout": r.stdout}))
"""


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped by init counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone(pid_file: Path) -> bool:
    """The escaped descendant is dead (SIGKILL sent; the kernel may take a moment); killed
    here if it is not, so that no test leaves it behind."""
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="finding the pipe's holders needs /proc")
@pytest.mark.parametrize("program_s", [0, CHILD_SLEEP_S], ids=["ends", "times-out"])
def test_a_descendant_that_left_the_session_holds_no_check_up(
    tmp_path: Path, program_s: int
) -> None:
    """A descendant that leaves the session and clears its environment (`setsid env -i`)
    and keeps the program's output open: the check still ends within its timeout plus the
    documented drain grace (it took the descendant's whole sleep), and the descendant,
    found by the pipe it holds, is killed."""
    script, note = tmp_path / "holder.py", tmp_path / "child.pid"
    script.write_text(HOLDER)
    command = [sys.executable, "-c", CHECK, str(TIMEOUT_S), str(tmp_path)]
    try:
        done = subprocess.run(
            [*command, str(script), str(note), str(program_s)],
            capture_output=True,
            text=True,
            timeout=GUARD_S,
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["stdout"] == "started\n"
        assert result["timed_out"] == (program_s > TIMEOUT_S)
        assert result["duration_s"] <= TIMEOUT_S + DRAIN_GRACE_S
    finally:
        assert gone(note)


@pytest.mark.slow
def test_a_checked_program_whose_descendant_holds_its_output_is_judged_on_time(
    tmp_path: Path,
) -> None:
    """The whole check through `codur run`: main.py leaves an escaped descendant holding
    its stdout; every run of the check ends within `verify.timeout_s` plus the grace."""
    work = tmp_path / "work"
    work.mkdir()
    note = work / "child.pid"  # in the folder: the check may write nowhere else
    holder = HOLDER.replace("float(sys.argv[2])", "0").replace("sys.argv[1]", repr(note.name))
    (work / "main.py").write_text(holder.replace('print("started"', 'print("7"'))
    (work / "expected.txt").write_text("10\n")
    flags = ["--no-model", "-o", f"verify.timeout_s={TIMEOUT_S}", "-o", "repair.enabled=false"]
    try:
        done = run_cli([*flags, "fix @main.py"], cwd=work, timeout=GUARD_S)
        assert done.returncode == ExitCode.NOT_VERIFIED, done.stdout + done.stderr
        log = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
        runs = [r for r in log if r["event"] == "verify.run"]
        assert runs and all(r["stdout"] == "7\n" for r in runs)
        assert all(r["duration_s"] <= TIMEOUT_S + DRAIN_GRACE_S for r in runs)
    finally:
        assert gone(note)
