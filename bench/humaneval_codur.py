"""Codur's side of bench/humaneval.py: one run of `python -m codur` in a fresh folder
holding the problem's prompt as solution.py, judged afterwards; and the same runs as Ray
tasks (`--ray [ADDRESS]`), through the challenge runner's code (codur.cluster): what a
run reserves, retries counted, a deadline per task, the kept files sent back here."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import humaneval_judge
from humaneval_judge import judge, run

from codur.config.schema import LogConfig

DEBUG_LOG = LogConfig().path
"""Where a run writes its debug log, relative to its folder (Codur's default `log.path`)."""
KEPT_LOG = "codur_debug.log"
"""The name the debug log is kept under in a run's OUT/runs/ folder."""

NO_MEMORY = {"CODUR_MEMORY__ENABLED": "false"}
"""No user preference reaches a benchmark run (a build without memory ignores it)."""
MARGIN_S = 60.0
"""Added to a Ray task's deadline (--timeout + --judge-timeout): copying, starting Python."""


def slug(task_id: str) -> str:
    return task_id.replace("/", "_")


def profile_of(name: str, overrides: list[str]) -> tuple[str, Any]:
    """The profile `name` (and its resolved name) as Codur loads it, outside any project."""
    from codur.config import load_config

    with tempfile.TemporaryDirectory() as empty:  # no project codur.yaml
        return load_config(Path(empty), None, overrides).config.profile(name)


def run_end(log: Path) -> dict:
    """The last run.end event of a Codur debug log. A run without one (killed on timeout)
    gets its model calls and tokens counted from the model.response events."""
    if not log.is_file():
        return {}
    events = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    ends = [e for e in events if e["event"] == "run.end"]
    if ends:
        return ends[-1]
    replies = [e for e in events if e["event"] == "model.response"]
    return {
        "model_calls": len(replies),
        "prompt_tokens": sum(e.get("prompt_tokens", 0) for e in replies),
        "completion_tokens": sum(e.get("completion_tokens", 0) for e in replies),
    }


def cross_check(log: Path) -> str:
    """What the run's cross-check did: replaced, kept, or none ("" : it did not run)."""
    if not log.is_file():
        return ""
    for line in log.read_text().splitlines():
        if line.strip() and (event := json.loads(line))["event"] == "crosscheck.end":
            if not event.get("passed"):
                return "none"
            return "replaced" if event.get("chosen") is not None else "kept"
    return ""


def codur_command(args: argparse.Namespace, seed: int) -> list[str]:
    base = shlex.split(args.codur_command or f"{shlex.quote(sys.executable)} -m codur")
    flags = ["--profile", args.profile, "-o", f"llm.profiles.{args.profile}.seed={seed}"]
    for override in args.set or []:
        flags += ["-o", override]
    return [*base, args.task, *flags]


def run_codur(
    problem: dict,
    seed: int,
    args: argparse.Namespace,
    keep: Path | None = None,
    env: dict | None = None,
) -> dict:
    """One Codur run, judged; solution.py and the debug log are kept in `keep` (default
    OUT/runs/<problem>.codur.s<seed>). `env`: variables set for the run."""
    keep = keep or args.out / "runs" / f"{slug(problem['task_id'])}.codur.s{seed}"
    with tempfile.TemporaryDirectory(prefix="codur-humaneval-") as tmp:
        folder = Path(tmp)
        (folder / "solution.py").write_text(problem["prompt"], encoding="utf-8")
        start = time.perf_counter()
        done = run(codur_command(args, seed), folder, args.timeout, {**(env or {}), **NO_MEMORY})
        wall = round(time.perf_counter() - start, 2)
        end = run_end(folder / DEBUG_LOG)
        crossed = cross_check(folder / DEBUG_LOG)
        verdict = judge(folder / "solution.py", problem, args.judge_timeout)
        keep.mkdir(parents=True, exist_ok=True)
        for name, kept in (("solution.py", "solution.py"), (DEBUG_LOG, KEPT_LOG)):
            if (folder / name).is_file():
                shutil.copy(folder / name, keep / kept)
    error = "timed out" if done.timed_out else ""
    if "status" not in end and not error:
        error = (done.stderr.strip().splitlines() or ["no run.end in the debug log"])[-1]
    return {
        "task_id": problem["task_id"],
        "mode": "codur",
        "seed": seed,
        "greedy": False,
        "passed": verdict.passed,
        "reason": verdict.reason,
        "status": end.get("status", "timeout" if done.timed_out else "error"),
        "exit_code": done.exit_code,
        "model_calls": end.get("model_calls", 0),
        "prompt_tokens": end.get("prompt_tokens", 0),
        "completion_tokens": end.get("completion_tokens", 0),
        "wall_s": wall,
        "error": error,
        "kept": str(keep),
        "crosscheck": crossed,
        "evidence": (end.get("evidence") or {}).get("level", ""),
        "repair_reviews": [r["verdict"] for r in end.get("repair_reviews", [])],
    }


def run_remote(
    problem: dict, seed: int, args: argparse.Namespace, env: dict
) -> tuple[dict, dict[str, bytes]]:
    """On a Ray worker: the run, with the files it keeps sent back instead of written."""
    with tempfile.TemporaryDirectory(prefix="codur-humaneval-keep-") as keep:
        record = run_codur(problem, seed, args, Path(keep), env)
        return record, {p.name: p.read_bytes() for p in Path(keep).iterdir()}


def run_on_ray(
    pending: list[tuple[dict, int]], args: argparse.Namespace, add: Callable[[dict], None]
) -> dict:
    """The runs `pending` as Ray tasks on `args.ray` (empty: a local instance); each
    record goes to `add` as it finishes (a run lost by Ray is not: it is made again by
    running with the same --out). What the report says of the cluster."""
    from codur.cluster.connect import connected, require_ray
    from codur.cluster.jobs import Job, run_jobs
    from codur.cluster.placement import placement

    ray = require_ray()
    for module in (humaneval_judge, sys.modules[__name__]):  # not importable on workers
        ray.cloudpickle.register_pickle_by_value(module)
    where = placement(*profile_of(args.profile, args.set or []))
    args.set = [*(args.set or []), *where.overrides]
    env = {k: v for k, v in os.environ.items() if k.startswith("CODUR_")}
    tally = {"placement": where.text, "retries": 0, "lost": 0}
    with connected(args.ray if args.ray not in ("", "local") else None) as cluster:
        tally["cluster"] = cluster.describe()
        jobs = [
            Job(
                f"{problem['task_id']} seed {seed}",
                run_remote,
                (problem, seed, args, env),
                where.cpus,
                args.timeout + args.judge_timeout + MARGIN_S,
            )
            for problem, seed in pending
        ]
        with closing(run_jobs(jobs, args.jobs)) as finished:
            for done in finished:
                tally["retries"] += done.retries
                problem, seed = done.job.args[:2]
                if done.value is None:
                    tally["lost"] += not done.timed_out
                    print(f"codur s{seed} {problem['task_id']}: {done.failure}", flush=True)
                    if not done.timed_out:
                        continue
                    record, files = _timed_out(problem, seed, done.job.deadline_s), {}
                else:
                    record, files = done.value
                keep = args.out / "runs" / f"{slug(problem['task_id'])}.codur.s{seed}"
                keep.mkdir(parents=True, exist_ok=True)
                for name, data in files.items():
                    (keep / name).write_bytes(data)
                add({**record, "kept": str(keep), "retries": done.retries})
    return tally


def _timed_out(problem: dict, seed: int, deadline_s: float) -> dict:
    return {
        "task_id": problem["task_id"],
        "mode": "codur",
        "seed": seed,
        "greedy": False,
        "passed": False,
        "reason": "timeout",
        "status": "timeout",
        "exit_code": None,
        "model_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "wall_s": deadline_s,
        "error": f"the Ray task ran past its deadline of {deadline_s:g} s",
    }
