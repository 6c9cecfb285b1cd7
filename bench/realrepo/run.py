#!/usr/bin/env python3
"""Run the real-repository benchmark: each bug of bugs.yaml in a fresh git repository.

    nice -n 19 .venv/bin/python bench/realrepo/run.py --modes codur,bare,repair [--seeds 2]
        [--only ID,...] [--limit N] [--per-package N] [--jobs 1] [--timeout 900] [-o key=value ...]
        [--profile local] [--cache DIR] [--out DIR]

For each bug: the package's clean sources are copied into a temporary folder, the bug's
patch applied and committed (a repository whose HEAD has the bug), and a small venv
layered on the package's venv imports the package from that copy. Then one mode:

- codur: `python -m codur TASK --yes -o tools.python=<that venv's python>` in the repo;
  its status, model calls and tokens from its debug log's run.end.
- repair: the same with `--no-model` (phase 0 and the repair search only). Run once: the
  search uses no seed.
- bare: the model alone (bare.py): the failing tests' output and the file the traceback
  names, one call, one retry.

The judge (suite.judge), never Codur's verdict: the package's full suite passes in that
venv and no test file changed; a test that fails on the clean sources in the same folder
too is not counted (suite.clean_failing). Runs are appended to OUT/runs.jsonl as they finish; a
rerun with the same --out skips them. Print the figures with report.py.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import yaml  # noqa: E402
from bare import BareModel, run_bare  # noqa: E402
from humaneval_codur import NO_MEMORY, run_end  # noqa: E402
from humaneval_judge import run as run_command  # noqa: E402
from journal import Journal  # noqa: E402
from packages import copy_sources, default_cache, layered_env, load_packages  # noqa: E402
from suite import clean_failing, hash_tests, judge  # noqa: E402

from codur.config.schema import LogConfig  # noqa: E402

MODES = ("codur", "bare", "repair")
LOG = LogConfig().path
"""Where a run writes its debug log, relative to the repository (the default `log.path`)."""
KEPT_LOG = "codur_debug.log"
"""The name the debug log is kept under in a run's OUT/runs/ folder."""


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", *args],
        cwd=repo,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def buggy_repo(bug: dict, package, cache: Path, dest: Path) -> Path:
    """The package's sources with the bug applied, committed in a new git repository."""
    repo = copy_sources(package, cache, dest)
    git(repo, "init", "-q")
    git(repo, "apply", "-", stdin=bug["patch"])
    (repo / ".git" / "info" / "exclude").write_text("__pycache__/\n.codur/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{package.name} {package.version}")
    return repo


def run_codur(bug: dict, repo: Path, python: Path, args, seed: int, no_model: bool) -> dict:
    command = [sys.executable, "-m", "codur", bug["task"], "--yes", "--profile", args.profile]
    command += ["-o", f"tools.python={python}", "-o", f"llm.profiles.{args.profile}.seed={seed}"]
    command += ["--no-model"] if no_model else []
    for override in args.set or []:
        command += ["-o", override]
    done = run_command(command, repo, args.timeout, NO_MEMORY)
    end = run_end(repo / LOG)
    error = "timed out" if done.timed_out else ""
    if "status" not in end and not error:
        error = (done.stderr.strip().splitlines() or ["no run.end in the debug log"])[-1]
    return {
        "status": end.get("status", "timeout" if done.timed_out else "error"),
        "exit_code": done.exit_code,
        "model_calls": end.get("model_calls", 0),
        "prompt_tokens": end.get("prompt_tokens", 0),
        "completion_tokens": end.get("completion_tokens", 0),
        "error": error,
    }


def run_one(bug: dict, mode: str, seed: int, args, bare: BareModel | None) -> dict:
    package = args.packages[bug["package"]]
    with tempfile.TemporaryDirectory(prefix="codur-realrepo-") as tmp:
        repo = buggy_repo(bug, package, args.cache, Path(tmp) / "repo")
        python = layered_env(package, args.cache, repo, Path(tmp) / "env")
        before = hash_tests(repo, package)
        commit = git(repo, "rev-parse", "HEAD").strip()
        start = time.perf_counter()
        if mode == "bare":
            figures = run_bare(bare, package, repo, python, bug, seed, args.judge_timeout)
        else:
            figures = run_codur(bug, repo, python, args, seed, no_model=mode == "repair")
        wall = round(time.perf_counter() - start, 2)
        verdict = judge(python, package, repo, before, args.judge_timeout)
        keep = args.out / "runs" / f"{bug['id']}.{mode}.s{seed}"
        keep.mkdir(parents=True, exist_ok=True)
        (keep / "diff.patch").write_text(git(repo, "diff"), encoding="utf-8")
        if (repo / LOG).is_file():
            (keep / KEPT_LOG).write_bytes((repo / LOG).read_bytes())
        if verdict.failing and verdict.ran:  # last: the clean sources replace the run's
            clean = clean_failing(
                python, package, repo, commit, bug["patch"], verdict.failing, args.judge_timeout
            )
            verdict = verdict.excusing(clean, never=tuple(bug.get("failing", ())))
    return {
        "id": bug["id"],
        "package": bug["package"],
        "kind": bug["kind"],
        "task_style": bug["task_style"],
        "mode": mode,
        "seed": seed,
        "passed": verdict.passed,
        "reason": verdict.reason,
        "excused": list(verdict.excused),
        **figures,
        "wall_s": wall,
        "kept": str(keep),
    }


def per_package(bugs: list[dict], n: int) -> list[dict]:
    """n bugs of each package, in the file's order within a style, the styles taking
    turns (named, symptom, ...) and each package starting with the style the one before
    it did not, so that even n=1 names the failing test in half the tasks."""
    packages = list(dict.fromkeys(b["package"] for b in bugs))
    styles = sorted({b["task_style"] for b in bugs})
    kept: list[dict] = []
    for k, name in enumerate(packages):
        queues = {
            s: [b for b in bugs if b["package"] == name and b["task_style"] == s] for s in styles
        }
        order = styles[k % len(styles) :] + styles[: k % len(styles)]
        picked: list[dict] = []
        while len(picked) < n and any(queues.values()):
            for style in order:
                if queues[style] and len(picked) < n:
                    picked.append(queues[style].pop(0))
        kept += sorted(picked, key=bugs.index)
    return kept


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", type=Path, default=HERE / "bugs.yaml")
    parser.add_argument("--modes", default="codur,bare,repair")
    parser.add_argument("--seeds", type=int, default=2, help="seeds 1..N (codur and bare)")
    parser.add_argument("--only", default="", help="bug ids, comma-separated")
    parser.add_argument("--limit", type=int, help="the first N bugs (after --only)")
    parser.add_argument(
        "--per-package",
        type=int,
        help="the first N bugs of each package (task styles alternate, so a balanced sample)",
    )
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds a Codur run")
    parser.add_argument("--judge-timeout", type=float, default=600.0, help="seconds a suite")
    parser.add_argument("--profile", default="local")
    parser.add_argument("-o", "--set", action="append", help="config override (codur, bare)")
    parser.add_argument("--cache", type=Path, default=None, help="default " + str(default_cache()))
    parser.add_argument("--out", type=Path, default=Path("realrepo-results"))
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.modes or set(args.modes) - set(MODES):
        parser.error(f"--modes takes {', '.join(MODES)}")
    args.cache = args.cache or default_cache()
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    bugs = yaml.safe_load(args.bugs.read_text())["bugs"]
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = set(wanted) - {b["id"] for b in bugs}
        if unknown:
            raise SystemExit(f"unknown bugs: {', '.join(sorted(unknown))}")
        bugs = [b for b in bugs if b["id"] in wanted]
    if args.per_package is not None:
        bugs = per_package(bugs, args.per_package)
    bugs = bugs[: args.limit] if args.limit is not None else bugs
    args.packages = load_packages()
    missing = {b["package"] for b in bugs} - {
        n for n, p in args.packages.items() if (p.venv(args.cache) / "ready").is_file()
    }
    if missing:
        raise SystemExit(f"not in the cache: {', '.join(sorted(missing))}; run generate.py")
    args.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(args.out / "runs.jsonl", ("id", "mode", "seed"))
    bare = BareModel(args.profile, args.set or []) if "bare" in args.modes else None
    # Seed by seed, bug by bug, every mode of a bug side by side: a run cut short
    # still leaves rows that compare the modes on the same bugs.
    runs = [
        (bug, mode, seed)
        for seed in range(0, args.seeds + 1)
        for bug in bugs
        for mode in args.modes
        if (seed == 0) == (mode == "repair") and (bug["id"], mode, seed) not in journal.done
    ]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for record in pool.map(lambda r: run_one(*r, args, bare), runs):
            journal.add(record)


if __name__ == "__main__":
    main()
