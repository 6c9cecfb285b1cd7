"""The CLI's exit without the interpreter's teardown (codur.exiting.leave): what Python's
own exit would still have done is done."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import ROOT


def _leave(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = "from codur.exiting import leave\n" + textwrap.dedent(body)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


@pytest.mark.slow
def test_leave_keeps_the_exit_code_buffers_threads_and_atexit(tmp_path: Path) -> None:
    done = _leave(
        tmp_path,
        """
        import atexit, concurrent.futures, io, time
        kept = open("kept.txt", "w")
        kept.write("written, never flushed")
        raw = io.BufferedWriter(io.FileIO("raw.bin", "w"))
        raw.write(b"bytes")
        pool = concurrent.futures.ThreadPoolExecutor(1)
        pool.submit(lambda: (time.sleep(0.3), open("late.txt", "w").write("done")))
        atexit.register(lambda: print("atexit ran"))
        print("buffered", end=" ")  # stdout is a pipe: block-buffered
        leave(3)
        """,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout == "buffered atexit ran\n"
    assert (tmp_path / "kept.txt").read_text() == "written, never flushed"
    assert (tmp_path / "raw.bin").read_bytes() == b"bytes"
    assert (tmp_path / "late.txt").read_text() == "done"  # the executor's work finished


@pytest.mark.slow
def test_leave_with_stdout_gone_exits_as_a_closed_pipe(tmp_path: Path) -> None:
    script = (
        "import sys\nfrom codur.exiting import leave\n"
        "print('still in the buffer')\nsys.stdin.readline()\nleave(0)\n"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, env=env, **pipes)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before Codur flushes its last output
    proc.stdin.write(b"go\n")
    proc.stdin.close()
    assert proc.wait(timeout=60) == 141, proc.stderr.read()
