"""One Codur run's time, read from its debug log (JSON lines): where the
wall time went, its model calls, and which of them were kept (bench/latency.py).

Phases. Each instant of the run counts once, for the first of these that is under way:
`load` (model.load.start to .end), a model call (model.request to its model.response),
`checks` (a check's tool.call to its tool.result, both `by: verify`), `repair` (the repair
node, from its node.start to its node.end: the search and its preparation). The model
calls' time is split into `prompt` and `generate` by the backend's own `timings`
(prompt_s, generate_s), scaled to the time they count for; `model_other` is the rest
(waiting for the model, retries, the client's own work, or the whole call when the
backend reports no timings). `overhead` is the wall time minus all of these: Codur's own
work, including the Python process starting before run.start.

Kept calls. A run's kept calls are those whose reply is in its final verified state: for
each file, the last `file.write` that is not the repair search's (`by: repair`, which
edits the files as they are and so keeps what the model wrote) before the run's last
passing verify.result, traced to the model calls that produced it. In a `sample` node
that is the calls of the chosen candidate (sample.end's `chosen`: the agent node of that
index in the node); anywhere else, the calls of the agent node that was running at the
write or had ended last before it. A run never verified keeps no call.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PHASES = ("load", "repair", "prompt", "generate", "model_other", "checks", "overhead")
"""The phases of a run, in the order they are shown; they add up to its wall time."""
FIRST = ("load", "model", "checks", "repair")
"""Which phase an instant counts for when several are under way: the first of these."""


@dataclass
class Call:
    """One model call as the log shows it."""

    call: int
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    duration_s: float = 0.0
    prompt_s: float = 0.0
    generate_s: float = 0.0
    kept: bool = False

    def floor_s(self, rates: dict[str, float]) -> float:
        """Seconds its tokens take at `rates`: the prompt tokens not cached at the prompt
        rate, the completion tokens at the generation rate."""
        fresh = max(self.prompt_tokens - self.cached_tokens, 0)
        return fresh / rates["prompt"] + self.completion_tokens / rates["generation"]


@dataclass
class Run:
    """One run's figures: `phases` (seconds) add up to `wall_s`."""

    name: str
    solved: bool
    status: str
    wall_s: float
    phases: dict[str, float]
    calls: list[Call] = field(default_factory=list)
    floor_s: float = 0.0
    useful_floor_s: float = 0.0
    first_call_s: float | None = None
    """Seconds from run.start to its first model.request (what the repair search before
    it costs the model); None: no model call."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def read_events(log: Path) -> list[dict[str, Any]]:
    """The log's events; a last line cut short (a run killed while writing) is left out,
    any other line that is no JSON is a ValueError naming it."""
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    events = []
    for number, line in enumerate(lines, 1):
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):
                break
            raise ValueError(f"{log}:{number}: not a JSON event ({exc.msg})") from None
    return events


def intervals(events: list[dict[str, Any]], end: float) -> dict[str, list[tuple[float, float]]]:
    """When each kind of phase was under way (FIRST's kinds); one still open at the end of
    the log (a run cut short) lasts until `end`."""
    spans: dict[str, list[tuple[float, float]]] = {kind: [] for kind in FIRST}
    open_: dict[tuple[str, Any], float] = {}
    for e in events:
        kind, ts = e.get("event"), e["ts"]
        key = _opens(e)
        if key is not None:
            open_[key] = ts
            continue
        key = _closes(e)
        if key is not None and key in open_:
            spans[key[0]].append((open_.pop(key), ts))
    for (kind, _), start in open_.items():
        spans[kind].append((start, end))
    return spans


def _opens(e: dict[str, Any]) -> tuple[str, Any] | None:
    kind = e.get("event")
    if kind == "model.load.start":
        return ("load", e.get("profile"))
    if kind == "model.request":
        return ("model", e.get("call"))
    if kind == "tool.call" and e.get("by") == "verify":
        return ("checks", e.get("tool"))
    if kind == "node.start" and e.get("node") == "repair":
        return ("repair", None)
    return None


def _closes(e: dict[str, Any]) -> tuple[str, Any] | None:
    kind = e.get("event")
    if kind == "model.load.end":
        return ("load", e.get("profile"))
    if kind == "model.response":
        return ("model", e.get("call"))
    if kind == "tool.result" and e.get("by") == "verify":
        return ("checks", e.get("tool"))
    if kind == "node.end" and e.get("node") == "repair":
        return ("repair", None)
    return None


def covered(spans: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    """Seconds each kind counts for, each instant for the first kind (FIRST) under way."""
    points = sorted({t for kind in spans.values() for span in kind for t in span})
    out = dict.fromkeys(FIRST, 0.0)
    for left, right in zip(points, points[1:], strict=False):
        middle = (left + right) / 2
        for kind in FIRST:
            if any(a <= middle < b for a, b in spans[kind]):
                out[kind] += right - left
                break
    return out


def calls_of(events: list[dict[str, Any]]) -> list[Call]:
    """The model calls that answered, in order, with their tokens and timings."""
    calls = []
    for e in events:
        if e.get("event") != "model.response":
            continue
        timings = e.get("timings") or {}
        calls.append(
            Call(
                call=int(e["call"]),
                prompt_tokens=int(e.get("prompt_tokens", 0)),
                cached_tokens=int(e.get("cached_tokens", 0)),
                completion_tokens=int(e.get("completion_tokens", 0)),
                duration_s=float(e.get("duration_s", 0.0)),
                prompt_s=float(timings.get("prompt_s", 0.0)),
                generate_s=float(timings.get("generate_s", 0.0)),
            )
        )
    return calls


def kept_calls(events: list[dict[str, Any]]) -> set[int]:
    """The calls whose reply is in the final verified state (the module's docstring)."""
    passing = [i for i, e in enumerate(events) if _passed(e)]
    if not passing:
        return set()
    writer: dict[str, list[int]] = {}
    running: list[int] | None = None
    last: list[int] = []
    candidates: list[list[int]] | None = None  # the agent nodes of the sample node under way
    chosen: list[int] = []
    for e in events[: passing[-1]]:
        kind, node = e.get("event"), e.get("node")
        if kind == "node.start" and node == "sample":
            candidates, chosen = [], []
        elif kind == "node.end" and node == "sample":
            candidates = None
        elif kind == "node.start" and node == "agent":
            running = []
            if candidates is not None:
                candidates.append(running)
        elif kind == "node.end" and node == "agent":
            last, running = running or [], None
        elif kind == "model.request" and running is not None:
            running.append(int(e["call"]))
        elif kind == "sample.end" and candidates is not None:
            index = e.get("chosen")
            chosen = candidates[index] if index is not None and index < len(candidates) else []
        elif kind == "file.write" and e.get("by") != "repair":
            made = chosen if candidates is not None else (running if running is not None else last)
            writer[e["path"]] = list(made)
    return {call for calls in writer.values() for call in calls}


def _passed(e: dict[str, Any]) -> bool:
    return e.get("event") == "verify.result" and e.get("passed") is True


def analyze(
    name: str,
    log: Path,
    rates: dict[str, float],
    solved: bool | None = None,
    wall_s: float | None = None,
) -> Run:
    """Run `name`'s figures from its debug log at `rates` (prompt and generation tokens per
    second). `solved`: the independent judge's verdict (None: the run's own, a run.end
    status of verified); `wall_s`: as its runner timed it (None: run.start to the log's
    last event)."""
    events = read_events(log) if log.is_file() else []
    if not events:
        return Run(name, bool(solved), "no log", wall_s or 0.0, {**dict.fromkeys(PHASES, 0.0)})
    start = next((e["ts"] for e in events if e.get("event") == "run.start"), events[0]["ts"])
    end = events[-1]["ts"]
    ends = [e for e in events if e.get("event") == "run.end"]
    status = ends[-1].get("status", "") if ends else "no run.end"
    wall = wall_s if wall_s is not None else end - start
    spans = intervals(events, end)
    time = covered(spans)
    calls = calls_of(events)
    kept = kept_calls(events)
    for call in calls:
        call.kept = call.call in kept
    called = sum(b - a for a, b in spans["model"])
    scale = time["model"] / called if called > 0 else 0.0
    prompt = sum(c.prompt_s for c in calls) * scale
    generate = sum(c.generate_s for c in calls) * scale
    phases = {
        "load": time["load"],
        "repair": time["repair"],
        "prompt": prompt,
        "generate": generate,
        "model_other": time["model"] - prompt - generate,
        "checks": time["checks"],
    }
    phases["overhead"] = wall - sum(phases.values())
    return Run(
        name=name,
        solved=status == "verified" if solved is None else solved,
        status=status,
        wall_s=round(wall, 3),
        phases={k: round(v, 3) for k, v in phases.items()},
        calls=calls,
        floor_s=round(sum(c.floor_s(rates) for c in calls), 3),
        useful_floor_s=round(sum(c.floor_s(rates) for c in calls if c.kept), 3),
        first_call_s=first_call(events, start),
    )


def first_call(events: list[dict[str, Any]], start: float) -> float | None:
    """Seconds from `start` to the first model.request; None: the run called no model."""
    first = next((e["ts"] for e in events if e.get("event") == "model.request"), None)
    return round(first - start, 3) if first is not None else None
