#!/usr/bin/env python3
"""Ask mode measured on a real codebase (default: the installed `rich` package).

    .venv/bin/python bench/ask.py [--root DIR] [--questions bench/ask_questions.yaml]
    .venv/bin/python bench/ask.py --answers N [-o llm.profiles.local.n_threads=1 ...]

Prints, for search_codebase: the index build time (cold: every file parsed; warm: the
saved index checked by size/mtime/hash, nothing parsed), the median and p95 query latency,
and the hit rate at 5 (a question hits when one of the five best chunks is in a file its
answer must cite) for BM25 alone and for the hybrid ranking. The index goes to a
temporary folder, never into the measured tree.

With `--answers N`, it also runs `codur ask` (in process, the default profile: the
embedded model) on the first N questions in a temporary copy of the tree, and reports the
share of answers citing `path:line` in a right file. That takes minutes per question.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from codur.config.schema import ToolsConfig
from codur.search.index import CodeIndex
from codur.tools.code import python_files
from codur.tools.context import ToolContext
from codur.workspace import Workspace

HERE = Path(__file__).resolve().parent


def package_root(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{name} is not installed")
    return Path(spec.origin).parent


def hit_rate(index: CodeIndex, questions: list[dict], mode: str) -> tuple[float, list[float]]:
    hits, latencies = 0, []
    for item in questions:
        start = time.perf_counter()
        found = index.search(item["q"], 5, mode)  # type: ignore[arg-type]
        latencies.append(time.perf_counter() - start)
        hits += any(h.chunk.path in item["files"] for h in found)
    return hits / len(questions), latencies


def search_figures(root: Path, questions: list[dict]) -> None:
    ctx = ToolContext(Workspace(root), config=ToolsConfig(code_index_dir=None))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "index"
        start = time.perf_counter()
        files = python_files(ctx)
        walk_s = time.perf_counter() - start
        index = CodeIndex.load(folder)
        stats = index.update(files)
        index.save()
        cold_s = time.perf_counter() - start
        start = time.perf_counter()
        index.search("warm up", 5, "hybrid")  # builds the BM25 and name rankings
        rank_build_s = time.perf_counter() - start
        start = time.perf_counter()
        warm = CodeIndex.load(folder)
        warm_stats = warm.update(python_files(ctx))
        warm_s = time.perf_counter() - start
    print(f"tree: {root} ({stats.files} Python files, {len(index.chunks)} chunks)")
    print(f"index build, cold: {cold_s:.2f} s (walk {walk_s:.2f} s, {stats.parsed} parsed)")
    print(f"ranking build (BM25 + names, on first query): {rank_build_s:.2f} s")
    print(f"index update, warm (nothing changed): {warm_s:.2f} s ({warm_stats.parsed} parsed)")
    for mode in ("bm25", "hybrid"):
        rate, lat = hit_rate(index, questions, mode)
        ms = sorted(x * 1000 for x in lat)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        print(
            f"{mode:6}: hit@5 {rate:.0%} ({round(rate * len(questions))}/{len(questions)}), "
            f"query median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms"
        )


def answer_figures(root: Path, questions: list[dict], n: int, overrides: list[str]) -> None:
    from codur.ask.run import ask_question
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session

    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / root.name
        shutil.copytree(root, tree, ignore=shutil.ignore_patterns("__pycache__"))
        quiet = ["log.enabled=false", "memory.enabled=false"]  # nothing cached between runs
        config = load_config(tree, overrides=[*quiet, *overrides]).config
        right = 0
        for item in questions[:n]:
            start = time.perf_counter()
            result = ask_question(Session(config, Workspace(tree), EventBus()), item["q"])
            cited = {c.path for c in result.citations if c.exists}
            ok = bool(cited & set(item["files"]))
            right += ok
            print(
                f"{'ok  ' if ok else 'miss'} {time.perf_counter() - start:6.1f} s "
                f"{result.status} {item['q']!r} cited {sorted(cited)}"
            )
    print(f"answers citing a right file: {right}/{n} ({right / n:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=HERE / "ask_questions.yaml")
    parser.add_argument("--root", type=Path, help="the tree (default: the package's folder)")
    parser.add_argument("--answers", type=int, default=0, help="run codur ask on N questions")
    parser.add_argument("-o", dest="overrides", action="append", default=[], help="key=value")
    args = parser.parse_args()
    spec = yaml.safe_load(args.questions.read_text())
    questions = spec["questions"]
    root = (args.root or package_root(spec["package"])).resolve()
    print(f"{len(questions)} questions from {args.questions.name}")
    search_figures(root, questions)
    if args.answers:
        answer_figures(root, questions, args.answers, args.overrides)


if __name__ == "__main__":
    main()
