#!/usr/bin/env python3
"""Solve rate and wall time of Codur over challenges/ (default: the embedded model).

    .venv/bin/python bench/challenges.py [--profile local] [--max-iterations 10] [--out DIR]

Runs `codur challenges run` (each challenge in its own temporary copy, judged by its own
entry command) and prints the figures; never asserts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="local")
    parser.add_argument("--max-iterations", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="codur-bench-")))
    args = parser.parse_args()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "codur",
            "challenges",
            "run",
            str(ROOT / "challenges"),
            "--profile",
            args.profile,
            "--max-iterations",
            str(args.max_iterations),
            "--out",
            str(args.out),
        ],
        cwd=ROOT,
        check=False,
    )
    report = json.loads((args.out / "report.json").read_text())
    s = report["summary"]
    print(
        f"solve rate {s['passed']}/{s['total']} ({100 * s['passed'] / max(s['total'], 1):.0f}%); "
        f"wall time total {s['wall_s_total']} s, median {s['wall_s_median']} s; "
        f"model calls {s['model_calls']}; report {args.out / 'report.md'}"
    )


if __name__ == "__main__":
    main()
