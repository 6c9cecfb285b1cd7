"""Running programs: exit codes, timeouts, output floods and memory caps are all bounded."""

from __future__ import annotations

import sys
from pathlib import Path

from codur.process import run_process


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
