"""The challenge runner's reports: report.json (everything) and report.md (readable: the
figures, a table with one row per run, the seeds each challenge passed with, the diffs and
the protected files a run changed)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from codur.challenges.outcome import JudgedRun, Summary, seed_label, seeds_passed, summarize

if TYPE_CHECKING:
    from codur.challenges.on_ray import RayTally


def _figures(s: Summary) -> list[str]:
    seeded = s.seeds != [None]
    runs = "runs " if seeded else ""
    lines = [f"# Challenge report: {s.passed}/{s.total} {runs}passed", ""]
    if seeded:
        per_seed = ", ".join(f"seed {k}: {v}/{s.challenges}" for k, v in s.per_seed.items())
        lines += [
            f"Per seed: {per_seed}.",
            "",
            f"Passed with every seed: {s.passed_every_seed}/{s.challenges}; "
            f"with at least one seed: {s.passed_any_seed}/{s.challenges}.",
            "",
        ]
    if s.protected:
        lines += [f"Runs that changed a protected file (failed): {s.protected}.", ""]
    lines += [_false_passes(s), ""]
    lines.append(
        f"Wall time: total {s.wall_s_total} s, median {s.wall_s_median} s; "
        f"model calls: {s.model_calls}."
    )
    return lines


def _false_passes(s: Summary) -> str:
    """Runs Codur passed (verified, checked) but the judge failed, per evidence level."""
    levels = "; ".join(
        f"{level} {c['judge_failed']} of {c['runs']}" for level, c in s.by_evidence.items()
    )
    return (
        f"Verified or checked but the judge failed: {s.false_passes}"
        + (f" (by evidence: {levels})." if levels else ".")
    )


def _table(outcomes: list[JudgedRun]) -> list[str]:
    lines = [
        "| challenge | seed | result | status | evidence | attempts | model calls | tokens "
        "| iterations | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        lines.append(
            f"| {o.name} | {seed_label(o.seed)} | {o.result} | {o.status} | {o.evidence or '-'} "
            f"| {o.attempts} | "
            f"{o.model_calls} | {o.prompt_tokens}+{o.completion_tokens} | {o.iterations} | "
            f"{o.wall_s} |"
        )
    return lines


def _seeds_per_challenge(outcomes: list[JudgedRun]) -> list[str]:
    lines = ["", "## Seeds each challenge passed with", ""]
    for name, seeds in seeds_passed(outcomes).items():
        runs = sum(o.name == name for o in outcomes)
        listed = ", ".join(map(seed_label, seeds)) or "none"
        lines.append(f"- {name}: {listed} ({len(seeds)}/{runs})")
    return lines


def _details(o: JudgedRun) -> list[str]:
    title = o.name if o.seed is None else f"{o.name} (seed {o.seed})"
    lines = ["", f"## {title}", "", f"log: `{o.log}`" + (f"; error: {o.error}" if o.error else "")]
    if o.retries:
        lines += ["", f"Started again {o.retries} time(s) on Ray after the worker running it died."]
    if o.violations:
        lines += ["", "Protected files changed (the run fails whatever its output):"]
        lines += [f"- {v}" for v in o.violations]
    if o.diff:
        lines += ["", "```diff", o.diff.rstrip(), "```"]
    return lines


def write_reports(outcomes: list[JudgedRun], out: Path, ray: RayTally | None = None) -> Summary:
    """report.json and report.md in `out`; `ray`: how a --ray run went (placement, retries,
    lost runs, an interruption)."""
    summary = summarize(outcomes)
    data: dict = {
        "summary": asdict(summary),
        "challenges": [{**asdict(o), "result": o.result} for o in outcomes],
    }
    if ray is not None:
        data["ray"] = asdict(ray)
    (out / "report.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    lines = [*_figures(summary), *(["", *ray.lines()] if ray is not None else []), ""]
    lines += _table(outcomes)
    if summary.seeds != [None]:
        lines += _seeds_per_challenge(outcomes)
    for o in outcomes:
        if o.diff or o.error or o.violations or o.retries:
            lines += _details(o)
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return summary
