#!/usr/bin/env python3
"""What the snapshot before a run costs: a 1,000-file folder (about 9 MB of Python), as a
git repo and as a plain folder; the first snapshot, a later run's, and the end snapshot.

    .venv/bin/python bench/snapshot.py [--files N] [--runs R]

State goes to a temporary folder (XDG_STATE_HOME), never the user's.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def make_folder(root: Path, files: int) -> None:
    rng = random.Random(1)
    for n in range(files):
        folder = root / f"pkg{n % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n}.py").write_text(f"x = {n}\n" * rng.randint(10, 400))


def one_run(root: Path, run_id: str, change: bool) -> tuple[float, float]:
    """Seconds for the start snapshot and for the end snapshot of one run."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.undo.snapshot import begin
    from codur.workspace import Workspace

    config = load_config(root, environ={}).config
    start = time.perf_counter()
    snap = begin(Workspace(root), config, run_id, "bench", EventBus())
    begun = time.perf_counter() - start
    if change:
        (root / "pkg1/mod1.py").write_text("changed\n")
    start = time.perf_counter()
    snap.finish("done")
    return begun, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="codur-bench-snapshot-") as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        for kind in ("git", "files"):
            root = Path(tmp) / kind
            make_folder(root, args.files)
            if kind == "git":
                git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
                subprocess.run([*git, "init", "-q"], cwd=root, check=True)
                subprocess.run([*git, "add", "-A"], cwd=root, check=True)
                subprocess.run([*git, "commit", "-qm", "bench"], cwd=root, check=True)
            size = sum(p.stat().st_size for p in root.rglob("*.py")) / 1e6
            first = one_run(root, f"{kind}-first", change=True)
            later = [one_run(root, f"{kind}-{n}", change=n % 2 == 0) for n in range(args.runs)]
            print(
                f"{kind:5} {args.files} files, {size:.1f} MB: first start {first[0]:.3f} s, "
                f"later start {statistics.median(s for s, _ in later):.3f} s, "
                f"end {statistics.median(e for _, e in later):.3f} s (median of {args.runs})"
            )


if __name__ == "__main__":
    main()
