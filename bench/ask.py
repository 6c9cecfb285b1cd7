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
embedded model) on the first N questions in a temporary copy of the tree (`--pick 36,37`:
those questions instead, numbered from 1), and reports the share of answers citing
`path:line` in a right file (the locations Codur lists under an answer citing none,
`codur.ask.tidy`, counted apart), the model calls and route (one answer call, or the research
loop) of each, and the median wall time. A multi-part question (`parts:` in the YAML)
is scored part by part: a part is answered when the answer cites one of its files; the
question, when every part is. That takes minutes per question. Search figures are over
the single-part questions.
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


def search_figures(
    root: Path, questions: list[dict], embed: bool, threads: int, parts: list[dict] = ()
) -> None:
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
    if parts:  # each part of the multi-part questions, searched alone as `codur ask` does
        print(
            "bm25, the multi-part questions' parts: "
            + scores(lambda q: chunks(index.search(q, 5, "bm25")), parts)
        )
    if semantic:
        model = semantic
        print(
            "model   : " + scores(lambda q: [index.chunks[i] for i in model.rank(q, 5)], questions)
        )
        index.semantic = semantic
        print("hybrid  : " + scores(lambda q: chunks(index.search(q, 5, "hybrid")), questions))


def chunks(hits: list[Hit]) -> list[Chunk]:
    return [h.chunk for h in hits]


def part_files(item: dict) -> list[list[str]]:
    """The right files of each part of a question (one part unless it has `parts`)."""
    return item.get("parts") or [item["files"]]


def answer_figures(
    root: Path, questions: list[dict], overrides: list[str], journal: Path | None
) -> None:
    """Run `codur ask` on `questions`; with a journal, skip those it holds."""
    from codur.ask.ground import CITATION
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
        for item in questions:
            if item["q"] in done:
                continue
            start = time.perf_counter()
            bus, events = EventBus(), []
            bus.subscribe(events.append)
            result = ask_question(Session(config, Workspace(tree), bus), item["q"])
            cited = sorted({c.path for c in result.citations if c.exists})  # the answer's own
            shown = CITATION.finditer(result.answer)  # with the search's locations listed
            listed = sorted({m.group(1) for m in shown if (tree / m.group(1)).is_file()})
            routes = [e.data["route"] for e in events if e.kind == "ask.route"]
            parts = [bool(set(cited) & set(files)) for files in part_files(item)]
            with_list = [bool(set(listed) & set(files)) for files in part_files(item)]
            row = {
                "q": item["q"],
                "ok": all(parts),
                "parts": parts,
                "ok_listed": all(with_list),
                "parts_listed": with_list,
                "status": result.status,
                "cited": cited,
                "listed": sorted(set(listed) - set(cited)),
                "model_calls": result.model_calls,
                "route": routes[-1] if routes else None,
                "wall_s": round(time.perf_counter() - start, 1),
            }
            done[item["q"]] = row
            if journal:
                with journal.open("a") as out:
                    out.write(json.dumps(row) + "\n")
            marks = " ".join("yes" if p else "no" for p in parts)
            print(
                f"{'ok  ' if row['ok'] else 'miss'} {row['wall_s']:6.1f} s "
                f"{row['model_calls']} calls {row['route']} {row['status']} {row['q']!r} "
                f"cited {cited}" + (f" parts: {marks}" if len(parts) > 1 else ""),
                flush=True,
            )
    rows = [done[item["q"]] for item in questions]
    single = [r for r, item in zip(rows, questions, strict=True) if "parts" not in item]
    multi = [r for r, item in zip(rows, questions, strict=True) if "parts" in item]
    if single:
        right = sum(r["ok"] for r in single)
        print(f"answers citing a right file: {right}/{len(single)} ({right / len(single):.0%})")
        listed = sum(r.get("ok_listed", r["ok"]) for r in single)
        print(f"  or listing one the search found (uncited answers): {listed}/{len(single)}")
    if multi:
        parts = [p for r in multi for p in r.get("parts", [r["ok"]])]
        whole = sum(r["ok"] for r in multi)
        print(
            f"multi-part: parts answered {sum(parts)}/{len(parts)}; questions with every part "
            f"answered {whole}/{len(multi)}"
        )
        listed = [p for r in multi for p in r.get("parts_listed", r.get("parts", []))]
        print(
            f"  or listing a file the search found: parts {sum(listed)}/{len(listed)}; "
            f"questions {sum(r.get('ok_listed', r['ok']) for r in multi)}/{len(multi)}"
        )
    walls = [r["wall_s"] for r in rows]
    calls = [r["model_calls"] for r in rows if "model_calls" in r]
    direct = sum(r.get("route") == "answer" for r in rows)
    print(
        f"wall time median {statistics.median(walls):.1f} s; model calls median "
        f"{statistics.median(calls) if calls else '?'}; one answer call (route answer) "
        f"{direct}/{len(rows)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=Path, default=HERE / "ask_questions.yaml")
    parser.add_argument("--root", type=Path, help="the tree (default: the package's folder)")
    parser.add_argument("--answers", type=int, default=0, help="run codur ask on N questions")
    parser.add_argument("--pick", help="run codur ask on these questions (1-based: 36,37)")
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
    from codur.ask.parts import split_question

    parts = [
        {"q": part, "files": files}
        for item in questions
        if "parts" in item
        for part, files in zip(split_question(item["q"]), item["parts"], strict=True)
    ]
    singles = [q for q in questions if "files" in q]
    search_figures(root, singles, args.embed, args.threads, parts)
    picked = (
        [questions[int(i) - 1] for i in args.pick.split(",")]
        if args.pick
        else questions[: args.answers]
    )
    if picked:
        answer_figures(root, picked, args.overrides, args.journal)


if __name__ == "__main__":
    main()
