"""The process-tree kill: a program's grandchildren die with it, wherever they went."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

from codur.sandbox.env import TAG
from codur.sandbox.reaper import REAPER

SLEEP_S = 300
"""How long each grandchild would live if nothing killed it."""

PROGRAM = f"""
import os, subprocess, sys, time
sleep = ("import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); "
         "time.sleep({SLEEP_S})")
# a grandchild of Codur in the program's process group, with its tag and its output
subprocess.Popen([sys.executable, "-c", sleep, "near.pid"])
# one that left the session, cleared its environment and does not hold the output
subprocess.Popen(
    [sys.executable, "-c", sleep, "far.pid"],
    start_new_session=True,
    env={{}},
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
while not all(os.path.exists(n) and open(n).read() for n in ("near.pid", "far.pid")):
    time.sleep(0.01)
print("started", flush=True)
time.sleep({SLEEP_S})
"""


def dead(pid: int) -> bool:
    """Process `pid` is gone or a zombie (SIGKILL sent; the kernel may take a moment); it
    is killed here if it is not, so that no test leaves it behind."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    psutil.Process(pid).kill()
    return False


def test_a_program_that_ends_takes_every_grandchild_with_it(tmp_path: Path) -> None:
    """Both grandchildren are killed when the program is ended (as on a timeout): the one
    in its group, and the one that moved to a session of its own with neither tag nor
    output (found as a descendant of the program before its group died)."""
    tag = REAPER.new_tag()
    proc = REAPER.spawn(
        tag,
        args=[sys.executable, "-c", PROGRAM],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, TAG: tag},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"started\n"
    finally:
        REAPER.end(tag, proc)
        proc.stdout.close()
    pids = {name: int((tmp_path / f"{name}.pid").read_text()) for name in ("near", "far")}
    assert {name: dead(pid) for name, pid in pids.items()} == {"near": True, "far": True}
