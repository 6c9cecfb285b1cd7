#!/usr/bin/env python3
"""grep_files speed: ripgrep against the pure-Python fallback on a large tree; prints figures.

    .venv/bin/python bench/grep_speed.py [--runs N] [--pattern REGEX] [--root DIR]

The default tree is this interpreter's site-packages (the dev venv's: tens of thousands
of files). Both engines get the same rules (gitignore, tools.ignore, secrets, binary
files skipped) and a match cap high enough that neither stops early.
"""

from __future__ import annotations

import argparse
import statistics
import sysconfig
import time
from pathlib import Path

from codur.config.schema import ToolsConfig
from codur.tools.context import ToolContext
from codur.tools.registry import invoke
from codur.workspace import Workspace


def timed(ctx: ToolContext, pattern: str, runs: int) -> tuple[float, int, str]:
    """(median seconds, matches, engine) over `runs` runs after one warm-up run."""
    samples = []
    result = invoke("grep_files", {"pattern": pattern}, ctx)
    for _ in range(runs):
        start = time.perf_counter()
        result = invoke("grep_files", {"pattern": pattern}, ctx)
        samples.append(time.perf_counter() - start)
    if not result.ok:
        raise SystemExit(f"grep_files failed: {result.output}")
    return statistics.median(samples), len(result.value.matches), result.value.engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pattern", default=r"def \w+_deprecated\(")
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_path("purelib")))
    args = parser.parse_args()
    files = sum(1 for p in args.root.rglob("*") if p.is_file())
    print(f"tree: {args.root} ({files} files); pattern: {args.pattern!r}; runs: {args.runs}")
    figures = {}
    for backend in ("ripgrep", "python"):
        config = ToolsConfig(
            grep_backend=backend,
            grep_max_matches=1_000_000,
            grep_timeout_s=600,
            output_limit_bytes=500_000_000,
            max_result_chars=1_000_000_000,
        )
        ctx = ToolContext(Workspace(args.root), config)
        seconds, matches, engine = timed(ctx, args.pattern, args.runs)
        figures[backend] = seconds
        print(f"{engine:8} {seconds:8.3f} s   {matches} matching lines")
    print(f"ratio python / ripgrep: {figures['python'] / figures['ripgrep']:.1f}x")


if __name__ == "__main__":
    main()
