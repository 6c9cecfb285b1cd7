#!/usr/bin/env python3
"""Ask mode measured on a real codebase (default: the installed `rich` package).

    .venv/bin/python bench/ask.py [--root DIR] [--questions bench/ask_questions.yaml]
    .venv/bin/python bench/ask.py --embed [--threads 1]    # with codur[embed]
    .venv/bin/python bench/ask.py --answers N [--journal F] [-o llm.profiles.local.n_threads=1]

Prints, for search_codebase: the index build time (cold: every file parsed; warm: the
saved index checked by size/mtime/hash, nothing parsed), the median and p95 query latency,
the hit rate at 5 (a question hits when one of the five best chunks is in a file its
answer must cite) and the MRR at 5 (1/rank of the first such chunk, 0 past 5), for BM25
alone and for the hybrid ranking (BM25 + chunk names). With `--embed`, the embedding
model's vectors are built too (cold, then warm from their cache) and three more rows are
printed: the model's ranking alone, and hybrid = BM25 + the model (what
`tools.code_search: hybrid` does with the extra), its latency including the query's
embedding. The index goes to a temporary folder, never into the measured tree.

With `--answers N`, it also runs `codur ask` (in process, the default profile: the
embedded model) on the first N questions in a temporary copy of the tree, and reports the
share of answers citing `path:line` in a right file. That takes minutes per question.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from codur.config.schema import ToolsConfig
from codur.config.sections import EmbeddingConfig
from codur.search.chunks import Chunk
from codur.search.embed import OnnxEmbedder
from codur.search.index import CodeIndex, Hit
from codur.search.vectors import SemanticIndex
from codur.tools.code import python_files
from codur.tools.context import ToolContext
from codur.workspace import Workspace

HERE = Path(__file__).resolve().parent
MODEL = EmbeddingConfig().model
MAX_TOKENS = EmbeddingConfig().max_tokens


def package_root(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{name} is not installed")
    return Path(spec.origin).parent


def scores(rank: Callable[[str], list[Chunk]], questions: list[dict]) -> str:
    """hit@5, MRR@5 and query latency of one ranking, as a line."""
    hits, rr, latencies = 0, 0.0, []
    for item in questions:
        start = time.perf_counter()
        found = rank(item["q"])[:5]
        latencies.append((time.perf_counter() - start) * 1000)
        first = next((i for i, c in enumerate(found, 1) if c.path in item["files"]), None)
        hits += first is not None
        rr += 1 / first if first else 0.0
    ms = sorted(latencies)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    n = len(questions)
    return (
        f"hit@5 {hits / n:.0%} ({hits}/{n}), MRR@5 {rr / n:.3f}, "
        f"query median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms"
    )


def search_figures(root: Path, questions: list[dict], embed: bool, threads: int) -> None:
    ctx = ToolContext(Workspace(root), config=ToolsConfig(code_index_dir=None))
    embedder = OnnxEmbedder(MODEL, threads=threads) if embed else None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "index"
        start = time.perf_counter()
        files = python_files(ctx)
        walk_s = time.perf_counter() - start
        index = CodeIndex.load(folder)
        if embedder:
            index.semantic = SemanticIndex.load(folder, embedder, MAX_TOKENS)
        stats = index.update(files)
        index.save()
        cold_s = time.perf_counter() - start
        start = time.perf_counter()
        index.search("warm up", 5, "hybrid")  # builds the BM25 and name rankings
        rank_build_s = time.perf_counter() - start
        start = time.perf_counter()
        warm = CodeIndex.load(folder)
        if embedder:
            warm.semantic = SemanticIndex.load(folder, embedder, MAX_TOKENS)
        warm_stats = warm.update(python_files(ctx))
        warm_s = time.perf_counter() - start
    print(f"tree: {root} ({stats.files} Python files, {len(index.chunks)} chunks)")
    print(f"index build, cold: {cold_s:.2f} s (walk {walk_s:.2f} s, {stats.parsed} parsed)")
    if embedder:
        print(
            f"  of which embedding: {stats.embed_seconds:.2f} s ({stats.embedded} chunks, "
            f"{MODEL}, {threads} thread(s), {MAX_TOKENS} tokens at most)"
        )
    print(f"ranking build (BM25 + names, on first query): {rank_build_s:.2f} s")
    print(
        f"index update, warm (nothing changed): {warm_s:.2f} s ({warm_stats.parsed} parsed, "
        f"{warm_stats.embedded} embedded)"
    )
    semantic, index.semantic = index.semantic, None
    print("bm25    : " + scores(lambda q: chunks(index.search(q, 5, "bm25")), questions))
    print("names   : " + scores(lambda q: chunks(index.search(q, 5, "hybrid")), questions))
    if semantic:
        model = semantic
        print(
            "model   : " + scores(lambda q: [index.chunks[i] for i in model.rank(q, 5)], questions)
        )
        index.semantic = semantic
        print("hybrid  : " + scores(lambda q: chunks(index.search(q, 5, "hybrid")), questions))


def chunks(hits: list[Hit]) -> list[Chunk]:
    return [h.chunk for h in hits]


def answer_figures(
    root: Path, questions: list[dict], n: int, overrides: list[str], journal: Path | None
) -> None:
    """Run `codur ask` on the first n questions; with a journal, skip those it holds."""
    from codur.ask.run import ask_question
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session

    done = {}
    if journal and journal.exists():
        done = {r["q"]: r for r in map(json.loads, journal.read_text().splitlines())}
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / root.name
        shutil.copytree(root, tree, ignore=shutil.ignore_patterns("__pycache__"))
        quiet = ["log.enabled=false", "memory.enabled=false"]  # nothing cached between runs
        config = load_config(tree, overrides=[*quiet, *overrides]).config
        for item in questions[:n]:
            if item["q"] in done:
                continue
            start = time.perf_counter()
            result = ask_question(Session(config, Workspace(tree), EventBus()), item["q"])
            cited = sorted({c.path for c in result.citations if c.exists})
            row = {
                "q": item["q"],
                "ok": bool(set(cited) & set(item["files"])),
                "status": result.status,
                "cited": cited,
                "wall_s": round(time.perf_counter() - start, 1),
            }
            done[item["q"]] = row
            if journal:
                with journal.open("a") as out:
                    out.write(json.dumps(row) + "\n")
            print(
                f"{'ok  ' if row['ok'] else 'miss'} {row['wall_s']:6.1f} s "
                f"{row['status']} {row['q']!r} cited {cited}",
                flush=True,
            )
    right = sum(done[item["q"]]["ok"] for item in questions[:n])
    print(f"answers citing a right file: {right}/{n} ({right / n:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=HERE / "ask_questions.yaml")
    parser.add_argument("--root", type=Path, help="the tree (default: the package's folder)")
    parser.add_argument("--answers", type=int, default=0, help="run codur ask on N questions")
    parser.add_argument(
        "--journal", type=Path, help="JSONL of answered questions: rerun to continue"
    )
    parser.add_argument("--embed", action="store_true", help="also the embedding model")
    parser.add_argument("--threads", type=int, default=1, help="its threads (default 1)")
    parser.add_argument("-o", dest="overrides", action="append", default=[], help="key=value")
    args = parser.parse_args()
    spec = yaml.safe_load(args.questions.read_text())
    questions = spec["questions"]
    root = (args.root or package_root(spec["package"])).resolve()
    print(f"{len(questions)} questions from {args.questions.name}")
    search_figures(root, questions, args.embed, args.threads)
    if args.answers:
        answer_figures(root, questions, args.answers, args.overrides, args.journal)


if __name__ == "__main__":
    main()
