"""bench/latency.py's figures over many runs (median and p90 over the solved runs that
called the model; the runs solved with no model call apart) and its table for people."""

from __future__ import annotations

import math
import statistics
from typing import Any

from latency_log import PHASES, Call, Run

COLUMNS = (
    ("wall", 7),
    *((phase if phase != "model_other" else "model+", 7) for phase in PHASES),
    ("calls", 5),
    ("kept", 4),
    ("floor", 7),
    ("useful", 7),
    ("w/floor", 7),
    ("w/useful", 8),
    ("cached", 7),
)
"""The table's columns after the run's name: (heading, width)."""


def stats(values: list[float]) -> dict[str, float | None]:
    """Median and p90 (nearest rank) of `values`; None for both when there are none."""
    if not values:
        return {"median": None, "p90": None}
    ordered = sorted(values)
    p90 = ordered[math.ceil(0.9 * len(ordered)) - 1]
    return {"median": round(statistics.median(ordered), 3), "p90": round(p90, 3)}


def ratio(wall: float, floor: float) -> float | None:
    return round(wall / floor, 2) if floor > 0 else None


def summarize(runs: list[Run]) -> dict[str, Any]:
    """The figures of `runs`: phases, wall time, calls and the two ratios over the solved
    runs that called the model; the solved runs with no model call by name; the completion
    tokens of every run's calls per solved run (what generating less is measured in)."""
    solved = [r for r in runs if r.solved]
    modelled = [r for r in solved if r.calls]
    calls = [c for r in runs for c in r.calls]
    prompt = sum(c.prompt_tokens for c in calls)
    return {
        "runs": len(runs),
        "solved": len(solved),
        "solved_with_model": len(modelled),
        "wall_s": stats([r.wall_s for r in modelled]),
        "phases_s": {p: stats([r.phases[p] for r in modelled]) for p in PHASES},
        "calls_per_solved": round(sum(len(r.calls) for r in solved) / len(solved), 2)
        if solved
        else None,
        "calls": stats([len(r.calls) for r in modelled]),
        "completion_per_solved": round(sum(c.completion_tokens for c in calls) / len(solved), 1)
        if solved
        else None,
        "completion_per_call": stats([c.completion_tokens for c in calls]),
        "wall_to_floor": stats([x for r in modelled if (x := ratio(r.wall_s, r.floor_s))]),
        "wall_to_useful_floor": stats(
            [x for r in modelled if (x := ratio(r.wall_s, r.useful_floor_s))]
        ),
        "solved_no_kept_call": [r.name for r in modelled if r.useful_floor_s <= 0],
        "first_call_s": stats([r.first_call_s for r in runs if r.first_call_s is not None]),
        "solved_without_model": {r.name: r.wall_s for r in solved if not r.calls},
        "cached_tokens_per_call": stats([c.cached_tokens for c in calls]),
        "cached_share": round(sum(c.cached_tokens for c in calls) / prompt, 3) if prompt else None,
        "achieved": achieved(calls),
    }


def achieved(calls: list[Call]) -> dict[str, float | None]:
    """The rates the calls got (tokens over the backend's own timings; None where it
    reported none): next to the rates timed at the start, they say if the machine's load
    changed in between."""
    timed = [c for c in calls if c.prompt_s > 0 and c.generate_s > 0]
    prompt_s, generate_s = sum(c.prompt_s for c in timed), sum(c.generate_s for c in timed)
    fresh = sum(max(c.prompt_tokens - c.cached_tokens, 0) for c in timed)
    return {
        "prompt": round(fresh / prompt_s, 1) if prompt_s else None,
        "generation": round(sum(c.completion_tokens for c in timed) / generate_s, 1)
        if generate_s
        else None,
    }


def row(name: str, values: list[Any]) -> str:
    cells = [f"{_cell(v):>{width}}" for v, (_, width) in zip(values, COLUMNS, strict=True)]
    return f"{name:<34} " + " ".join(cells)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def run_row(run: Run) -> str:
    cached = statistics.mean(c.cached_tokens for c in run.calls) if run.calls else None
    values = [
        run.wall_s,
        *(run.phases[p] for p in PHASES),
        len(run.calls),
        sum(c.kept for c in run.calls),
        run.floor_s,
        run.useful_floor_s,
        ratio(run.wall_s, run.floor_s),
        ratio(run.wall_s, run.useful_floor_s),
        cached,
    ]
    mark = "" if run.solved else " (unsolved)"
    return row(f"{run.name}{mark}"[:34], values)


def summary_rows(label: str, summary: dict[str, Any]) -> list[str]:
    out = []
    for which in ("median", "p90"):
        values = [
            summary["wall_s"][which],
            *(summary["phases_s"][p][which] for p in PHASES),
            summary["calls"][which],
            None,
            None,
            None,
            summary["wall_to_floor"][which],
            summary["wall_to_useful_floor"][which],
            summary["cached_tokens_per_call"][which],
        ]
        out.append(row(f"{label} {which}", values))
    return out


def table(rates: dict[str, float], sets: dict[str, list[Run]]) -> str:
    """The whole report: the rates, a row per run, then each set's median and p90 over its
    solved runs that called the model, and what those leave out."""
    lines = [
        f"rates on this machine: prompt {rates['prompt']} tokens/s, "
        f"generation {rates['generation']} tokens/s",
        "",
        row("run", [h for h, _ in COLUMNS]),
    ]
    for name, runs in sets.items():
        lines.append(f"-- {name}")
        lines += [run_row(r) for r in runs]
    for name, runs in sets.items():
        summary = summarize(runs)
        lines += ["", *summary_rows(name, summary)]
        lines.append(
            f"{name}: {summary['solved']}/{summary['runs']} solved, "
            f"{summary['solved_with_model']} with the model; "
            f"model calls per solved task {summary['calls_per_solved']}; "
            f"completion tokens per solved task {summary['completion_per_solved']} "
            f"(per call: median {summary['completion_per_call']['median']}, "
            f"p90 {summary['completion_per_call']['p90']}); "
            f"cached share of prompt tokens {summary['cached_share']}"
        )
        first = summary["first_call_s"]
        if first["median"] is not None:
            lines.append(
                f"{name}: first model call after {first['median']} s median, "
                f"{first['p90']} s p90 (every run that called the model)"
            )
        got = summary["achieved"]
        if got["prompt"] is not None:
            lines.append(
                f"{name}: rates the calls got: prompt {got['prompt']} tokens/s, "
                f"generation {got['generation']} tokens/s"
            )
        if summary["solved_without_model"]:
            shown = ", ".join(f"{k} {v:.1f}s" for k, v in summary["solved_without_model"].items())
            lines.append(f"{name}: solved with no model call: {shown}")
        if summary["solved_no_kept_call"]:
            lines.append(
                f"{name}: solved, no reply kept: {', '.join(summary['solved_no_kept_call'])}"
            )
    return "\n".join(lines)
