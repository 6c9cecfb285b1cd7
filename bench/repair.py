#!/usr/bin/env python3
"""Mutation benchmark for the repair search: break correct programs with one mutation,
then let the search (no model) repair them; prints the fraction repaired and the time.

.venv/bin/python bench/repair.py [--per-program N] [--budget S] [--seed N] [--json FILE]

Correct programs: every challenge's reference solution (challenges/*/solution applied)
and the programs in bench/repair_corpus/. For each, single mutations are drawn at random
(round-robin over operators, fixed seed); a mutant the program's check still passes
(an equivalent mutant) is skipped, the first N that fail are kept. Each kept mutant is
verified and searched exactly as `codur` does after a failed attempt (default config,
time budget --budget). "repaired" means the search found an edit that passes the check;
"exact" means that edit restored the original text.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from journal import in_turn  # noqa: E402

from codur.challenges.spec import discover  # noqa: E402
from codur.config.schema import RepairConfig, VerifyConfig  # noqa: E402
from codur.repair.mutations import Mutation, apply_mutations, mutations  # noqa: E402
from codur.repair.search import search  # noqa: E402
from codur.tools.context import ToolContext  # noqa: E402
from codur.verify.agent import run_plan, verification_context, verify_task  # noqa: E402
from codur.verify.target import is_test, python_files  # noqa: E402
from codur.workspace import Workspace  # noqa: E402


def programs(tmp: Path) -> list[Path]:
    """Working copies of every correct program."""
    found = [
        c.copy_to(tmp / "challenges", with_solution=True) for c in discover([ROOT / "challenges"])
    ]
    for folder in sorted((ROOT / "bench" / "repair_corpus").iterdir()):
        if folder.is_dir():
            found.append(Path(shutil.copytree(folder, tmp / "corpus" / folder.name)))
    return found


def mutants(
    program: Path, per_program: int, rng: random.Random, scratch: Path
) -> tuple[list[Mutation], int]:
    """The first `per_program` mutants the program's own check rejects; and how many
    equivalent mutants were skipped on the way."""
    ctx = ToolContext(Workspace(program))
    base = verify_task(ctx, VerifyConfig(), [], [])
    if not base.passed:
        raise SystemExit(f"{program.name}: the correct program fails its check: {base.feedback}")
    sources = {p: (program / p).read_text() for p in python_files(program) if not is_test(p)}
    edits = [e for path, text in sources.items() for e in mutations(path, text)]
    work = Path(shutil.copytree(program, scratch / program.name))
    vctx = verification_context(ToolContext(Workspace(work)), VerifyConfig())
    kept, equivalent = [], 0
    for edit in in_turn(edits, lambda edit: edit.operator, rng):
        (work / edit.path).write_text(apply_mutations(sources[edit.path], [edit]))
        failed = not run_plan(base.plan, vctx).passed
        (work / edit.path).write_text(sources[edit.path])
        if failed:
            kept.append(edit)
            if len(kept) == per_program:
                break
        else:
            equivalent += 1
    return kept, equivalent


def _deletes(edit: Mutation) -> bool:
    """The mutation removed code (a guard, an operand, a slice bound): the search has no
    operator that could add it back, as nothing says what was there."""
    return edit.text == "pass" or (len(edit.text) < len(edit.old) and edit.text in edit.old)


def repair_one(program: Path, edit: Mutation, budget: float, tmp: Path) -> dict:
    work = Path(shutil.copytree(program, tmp))
    original = (work / edit.path).read_text()
    (work / edit.path).write_text(apply_mutations(original, [edit]))
    ctx = ToolContext(Workspace(work))
    failing = verify_task(ctx, VerifyConfig(), [], [])
    result = search(failing.plan, failing, ctx, RepairConfig(time_budget_s=budget), VerifyConfig())
    return {
        "program": program.name,
        "operator": edit.operator,
        "deletion": _deletes(edit),
        "mutation": f"{edit.path} {edit.description}",
        "strategy": failing.strategy,
        "repaired": result.candidate is not None,
        "exact": result.sources.get(edit.path) == original,
        "fix": result.candidate.description if result.candidate else "",
        "reason": result.reason,
        "tried": result.tried,
        "candidates": result.candidates,
        "seconds": result.duration_s,
    }


def report(rows: list[dict], equivalent: int) -> None:
    def line(name: str, group: list[dict]) -> str:
        fixed = [r for r in group if r["repaired"]]
        times = [r["seconds"] for r in group]
        return (
            f"{name:<16} {len(group):>4} {len(fixed):>5} {len(fixed) / len(group):>6.0%} "
            f"{sum(r['exact'] for r in group):>6} {statistics.median(times):>8.2f} "
            f"{max(times):>7.2f}"
        )

    heads = ("n", "fixed", "rate", "exact", "median s", "max s")
    widths = (4, 5, 6, 6, 8, 7)
    print(f"{'operator':<16} " + " ".join(f"{h:>{w}}" for h, w in zip(heads, widths, strict=True)))
    for operator in sorted({r["operator"] for r in rows}):
        print(line(operator, [r for r in rows if r["operator"] == operator]))
    print(line("ALL", rows))
    kept = [r for r in rows if not r["deletion"]]
    if kept and len(kept) < len(rows):
        print(line("ALL-deletions", kept))
        print(f"({len(rows) - len(kept)} mutants deleted code: a removed guard, operand or bound)")
    fixed_times = [r["seconds"] for r in rows if r["repaired"]]
    if fixed_times:
        print(f"median time of the repaired ones: {statistics.median(fixed_times):.2f} s")
    print(f"equivalent mutants skipped (the check still passed): {equivalent}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-program", type=int, default=5)
    parser.add_argument("--budget", type=float, default=RepairConfig().time_budget_s)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: list[dict] = []
    equivalent = 0
    with tempfile.TemporaryDirectory(prefix="codur-bench-repair-") as tmp:
        base = Path(tmp)
        for program in programs(base / "programs"):
            kept, skipped = mutants(program, args.per_program, rng, base / "kill")
            equivalent += skipped
            for number, edit in enumerate(kept):
                row = repair_one(
                    program, edit, args.budget, base / "runs" / f"{program.name}-{number}"
                )
                rows.append(row)
                mark = "fixed" if row["repaired"] else "FAIL "
                print(
                    f"{mark} {row['seconds']:6.2f}s {program.name}: {row['mutation']}"
                    f" -> {row['fix'] or row['reason']}",
                    flush=True,
                )
    print()
    report(rows, equivalent)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
