#!/usr/bin/env python3
"""The real-repository benchmark's figures from a run.py journal, one row a mode and seed.

    .venv/bin/python bench/realrepo/report.py [--out DIR] [--common]

`--common`: only the bugs every mode in the journal ran (the rows side by side on the
same bugs, e.g. while a run is under way or when one mode ran on a sample).

fixed/total as the judge says (full suite passes, no test file changed); false verified:
Codur ended `verified` and the judge failed; wall time (total and median) and tokens
(prompt+completion) of the runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path


def rows(records: list[dict]) -> list[dict]:
    groups: dict[tuple[str, int], list[dict]] = {}
    for record in records:
        groups.setdefault((record["mode"], record["seed"]), []).append(record)
    order = {"codur": 0, "bare": 1, "repair": 2}
    out = []
    for (mode, seed), group in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        walls = [r["wall_s"] for r in group]
        out.append(
            {
                "mode": mode,
                "seed": seed,
                "fixed": sum(r["passed"] for r in group),
                "total": len(group),
                "false_verified": sum(
                    r.get("status") == "verified" and not r["passed"] for r in group
                ),
                "wall_s": round(sum(walls), 1),
                "median_s": round(statistics.median(walls), 1),
                "calls": sum(r.get("model_calls", 0) for r in group),
                "prompt_tokens": sum(r.get("prompt_tokens", 0) for r in group),
                "completion_tokens": sum(r.get("completion_tokens", 0) for r in group),
            }
        )
    return out


def table(summary: list[dict]) -> str:
    lines = [
        "| mode | seed | fixed | false verified | wall s (median) | model calls | tokens |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in summary:
        verified = str(r["false_verified"]) if r["mode"] != "bare" else "-"
        lines.append(
            f"| {r['mode']} | {r['seed'] or '-'} | {r['fixed']}/{r['total']} | {verified} | "
            f"{r['wall_s']} ({r['median_s']}) | {r['calls']} | "
            f"{r['prompt_tokens']}+{r['completion_tokens']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("realrepo-results"))
    parser.add_argument("--common", action="store_true", help="the bugs every mode ran")
    args = parser.parse_args(argv)
    journal = args.out / "runs.jsonl"
    if not journal.is_file():
        raise SystemExit(f"no journal at {journal}: run bench/realrepo/run.py first")
    records = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
    if args.common:
        ran = [{r["id"] for r in records if r["mode"] == m} for m in {r["mode"] for r in records}]
        both = set.intersection(*ran) if ran else set()
        records = [r for r in records if r["id"] in both]
    print(table(rows(records)))
    ids = sorted({r["id"] for r in records})
    for bug in ids:
        marks = " ".join(
            f"{r['mode']}/s{r['seed']}:{'pass' if r['passed'] else 'FAIL'}"
            for r in records
            if r["id"] == bug
        )
        print(f"  {bug:<20} {marks}")


if __name__ == "__main__":
    main()
