#!/usr/bin/env python3
"""How far is the embedded model from the bugs, told exactly where each one is? For every
bug of bugs.yaml that changed one line into one line, the line is cut out of the buggy
file and the model fills the gap (fill-in-the-middle: the lines before and after it, in
Qwen2.5-Coder's FIM tokens), greedy and then `--samples` draws at temperature 0.8. A row
a bug: whether the greedy line, or any line drawn, is the original (stripped text equal;
the judge is the bug's own patch, not a test run, so a line that differs but works is
counted as a miss). A ceiling for line-level repair by this model, not a Codur figure.

    CODUR_REALREPO_CACHE=DIR .venv/bin/python bench/realrepo/infill.py [--samples 4] [--out F]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from packages import default_cache  # noqa: E402
from replay_copies import patch_lines  # noqa: E402

STOPS = ["\n", "<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|im_end|>"]


def one_line_bugs(bugs: list[dict]) -> list[dict]:
    """The bugs whose patch changes one line into one line."""
    return [
        b
        for b in bugs
        if len(patch_lines(b["patch"], "-")) == 1 == len(patch_lines(b["patch"], "+"))
    ]


def gap(source: str, fixed: str, before: int, after: int) -> str | None:
    """The FIM prompt around the one line of `source` (the clean file) that the bug
    changes (the other lines are the buggy file's too): that line is the gap. None when
    the line is not found once."""
    lines = source.splitlines()
    at = [i for i, line in enumerate(lines) if line.strip() == fixed]
    if len(at) != 1:
        return None
    i = at[0]
    prefix = "\n".join(lines[max(0, i - before) : i]) + "\n"
    suffix = "\n" + "\n".join(lines[i + 1 : i + 1 + after]) + "\n"
    return f"<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--before", type=int, default=40, help="lines of context before")
    parser.add_argument("--after", type=int, default=20, help="lines of context after")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="the rows as JSON")
    args = parser.parse_args()
    from llama_cpp import Llama

    from codur.models.weights import ensure_weights

    cache = args.cache or default_cache()
    path = str(ensure_weights("qwen2.5-coder-1.5b"))
    llm = Llama(model_path=path, n_ctx=4096, n_threads=args.threads, verbose=False)
    bugs = yaml.safe_load((HERE / "bugs.yaml").read_text())["bugs"]
    rows = []
    for b in one_line_bugs(bugs):
        fixed, bug = patch_lines(b["patch"], "-")[0], patch_lines(b["patch"], "+")[0]
        source = (cache / "src" / b["package"] / b["file"]).read_text()
        prompt = gap(source, fixed, args.before, args.after)
        if prompt is None:
            print(f"{b['id']:20} skipped: the fixed line is not found once", flush=True)
            continue
        tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
        start, drawn = time.perf_counter(), []
        for k in range(1 + args.samples):
            temperature = 0.0 if k == 0 else 0.8
            reply = llm.create_completion(
                tokens, max_tokens=80, temperature=temperature, seed=k, stop=STOPS
            )
            drawn.append(reply["choices"][0]["text"].strip())
        row = {
            "id": b["id"],
            "kind": b["kind"],
            "greedy": drawn[0] == fixed,
            "any": fixed in drawn,
            "greedy_is_bug": drawn[0] == bug,
            "prompt_tokens": len(tokens),
            "seconds": round(time.perf_counter() - start, 1),
            "greedy_line": drawn[0],
        }
        rows.append(row)
        mark = "fixed" if row["greedy"] else ("bug" if row["greedy_is_bug"] else "other")
        print(f"{b['id']:20} {b['kind']:20} greedy {mark:5} any {row['any']!s:5} "
              f"{row['prompt_tokens']} tokens {row['seconds']} s", flush=True)  # fmt: skip
    greedy, anyone = sum(r["greedy"] for r in rows), sum(r["any"] for r in rows)
    print(f"original line restored: greedy {greedy}/{len(rows)}, "
          f"greedy or one of {args.samples} draws {anyone}/{len(rows)}")  # fmt: skip
    if args.out is not None:
        args.out.write_text(json.dumps({"samples": args.samples, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
