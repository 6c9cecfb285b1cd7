#!/usr/bin/env python3
"""Run Codur on every challenge in challenges/ and print pass/fail, model calls and time.

    .venv/bin/python bench/challenges.py [--profile local] [--max-iterations 10] [NAMES...]

Each challenge runs in a fresh temporary copy (without its solution/ and challenge.yaml);
a pass is judged here, by running the entry command and comparing with expected.txt, not
by trusting Codur's own verdict. Prints figures, never asserts.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def run_one(folder: Path, profile: str | None, max_iterations: int) -> dict:
    meta = yaml.safe_load((folder / "challenge.yaml").read_text())
    work = Path(tempfile.mkdtemp(prefix="codur-bench-")) / folder.name
    shutil.copytree(folder, work, ignore=shutil.ignore_patterns("solution", "challenge.yaml"))
    task = (work / "prompt.txt").read_text().strip()
    cmd = [sys.executable, "-m", "codur", task, "--max-iterations", str(max_iterations)]
    if profile:
        cmd += ["--profile", profile]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    wall = time.perf_counter() - start
    entry = [sys.executable if part == "python" else part for part in meta["entry"]]
    check = subprocess.run(
        entry, cwd=work, capture_output=True, text=True, timeout=meta.get("timeout_s", 30)
    )
    expected = (work / meta.get("expected", "expected.txt")).read_text()
    end = json.loads((work / "codur_debug.log").read_text().splitlines()[-1])
    return {
        "name": folder.name,
        "passed": check.stdout.rstrip() == expected.rstrip(),
        "status": end.get("status"),
        "exit_code": done.returncode,
        "model_calls": end.get("model_calls", 0),
        "iterations": end.get("iterations", 0),
        "wall_s": round(wall, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--profile")
    parser.add_argument("--max-iterations", type=int, default=10)
    args = parser.parse_args()
    folders = sorted(p for p in (ROOT / "challenges").iterdir() if (p / "challenge.yaml").is_file())
    if args.names:
        folders = [f for f in folders if f.name in args.names]
    rows = [run_one(f, args.profile, args.max_iterations) for f in folders]
    print(f"{'challenge':<24} {'result':<6} {'status':<11} {'calls':>5} {'iters':>5} {'wall s':>7}")
    for r in rows:
        result = "pass" if r["passed"] else "FAIL"
        print(
            f"{r['name']:<24} {result:<6} {r['status']:<11} {r['model_calls']:>5} "
            f"{r['iterations']:>5} {r['wall_s']:>7}"
        )
    walls = [r["wall_s"] for r in rows]
    print(
        f"passed {sum(r['passed'] for r in rows)}/{len(rows)}; wall time median "
        f"{statistics.median(walls):.1f}s, total {sum(walls):.1f}s; model calls "
        f"{sum(r['model_calls'] for r in rows)}"
    )


if __name__ == "__main__":
    main()
