#!/usr/bin/env python3
"""The embedded model's agent loop with tools on vs off, on the challenges (issue 15).

    .venv/bin/python bench/agent_tools.py [--seeds 3] [--threads 1] [--parallel]
        [--challenges digit_sum_recursion,pagination_helper,...] [--out DIR]

Runs `codur challenges run` twice with the `local` profile, once with
`-o llm.profiles.local.agent_tools=true` (the coder's loop offers tools: read_file,
grep_files, run_python_file, ... called through constrained decoding) and once with
`=false` (one reply with the files given up front), and prints both summaries: passes
per seed, wall time, model calls. `--parallel` runs the two at once (one thread each is
fair only if the machine has a core for each). Never asserts.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEED_THE_MODEL = (
    "digit_sum_recursion,pagination_helper,receipt_formatting,spec_run_length,wrong_discount"
)
"""Challenges the repair search does not fix alone (docs/benchmarks.md), so the model runs."""


def command(args: argparse.Namespace, tools: bool, out: Path) -> list[str]:
    names = [n for n in args.challenges.split(",") if n]
    return [
        sys.executable,
        "-m",
        "codur",
        "challenges",
        "run",
        *(str(ROOT / "challenges" / n) for n in names),
        "--profile",
        "local",
        "--seeds",
        str(args.seeds),
        "--timeout",
        str(args.timeout),
        "-o",
        f"llm.profiles.local.n_threads={args.threads}",
        "-o",
        f"llm.profiles.local.agent_tools={str(tools).lower()}",
        "--out",
        str(out),
    ]


def summary(label: str, out: Path) -> str:
    s = json.loads((out / "report.json").read_text())["summary"]
    per_seed = ", ".join(f"seed {k}: {v}/{s['challenges']}" for k, v in s["per_seed"].items())
    return (
        f"tools {label}: passed {s['passed']}/{s['total']} runs ({per_seed}); "
        f"every seed {s['passed_every_seed']}/{s['challenges']}, "
        f"any seed {s['passed_any_seed']}/{s['challenges']}; "
        f"wall total {s['wall_s_total']} s, median {s['wall_s_median']} s; "
        f"model calls {s['model_calls']}; report {out / 'report.md'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--challenges", default=NEED_THE_MODEL)
    parser.add_argument("--parallel", action="store_true")
    parser.add_argument(
        "--out", type=Path, default=Path(tempfile.mkdtemp(prefix="codur-agent-tools-"))
    )
    args = parser.parse_args()
    outs = {"on": args.out / "tools-on", "off": args.out / "tools-off"}
    runs = [(label, command(args, label == "on", outs[label])) for label in ("on", "off")]
    for label, cmd in runs:
        print(f"tools {label}: {' '.join(cmd)}", flush=True)
    if args.parallel:
        procs = [subprocess.Popen(cmd, cwd=ROOT) for _, cmd in runs]
        for proc in procs:
            proc.wait()
    else:
        for _, cmd in runs:
            subprocess.run(cmd, cwd=ROOT, check=False)
    for label, _ in runs:
        print(summary(label, outs[label]))


if __name__ == "__main__":
    main()
