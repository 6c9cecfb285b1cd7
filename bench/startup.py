#!/usr/bin/env python3
"""Start-up time of `codur --help` against a bare `import langchain_openai`; prints figures.

    .venv/bin/python bench/startup.py [--runs N]

The goal is `codur --help` <= 0.3 s: the CLI must not import LangChain to print help.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str], runs: int) -> float:
    """Median wall time of `cmd` over `runs` runs (after one warm-up run)."""
    subprocess.run(cmd, capture_output=True, check=True)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    baseline = timed([sys.executable, "-c", "pass"], runs)
    help_s = timed([sys.executable, "-m", "codur", "--help"], runs)
    lc_s = timed([sys.executable, "-c", "import langchain_openai"], runs)
    print(f"python -c pass               {baseline:6.3f} s")
    print(f"codur --help                 {help_s:6.3f} s   (goal <= 0.300 s)")
    print(f"python -c 'import langchain_openai'  {lc_s:6.3f} s")
    print(f"ratio codur --help / import langchain_openai: {help_s / lc_s:.3f}")


if __name__ == "__main__":
    main()
