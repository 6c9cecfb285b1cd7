#!/usr/bin/env python3
"""Wall time of a phase-0 task (no model call) against `codur --help`; prints figures.

.venv/bin/python bench/fastpath.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(cmd: list[str], cwd: Path, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    work = Path(tempfile.mkdtemp(prefix="codur-fastpath-"))
    (work / "notes.txt").write_text("hello\n")
    codur = [sys.executable, "-m", "codur"]
    help_s = timed([*codur, "--help"], work, runs)
    read_s = timed([*codur, "read notes.txt"], work, runs)
    copy_s = timed([*codur, "copy notes.txt to copy.txt", "--yes"], work, runs)
    print(f"codur --help                      {help_s:6.3f} s")
    print(f"codur 'read notes.txt'   (phase 0) {read_s:6.3f} s")
    print(f"codur 'copy notes.txt to copy.txt' {copy_s:6.3f} s")


if __name__ == "__main__":
    main()
