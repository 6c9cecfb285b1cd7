"""How a trace tree looks: one line an item, long values cut to a line; with `full`,
everything the log holds (arguments, results, prompts, replies, tracebacks) under it.

The outline goes to `IO.tree`, which draws it; nothing here prints.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

from codur.eventlines import STAGES
from codur.traces.calls import block, model_line, tool_line
from codur.traces.item import Item, listed, number, text
from codur.ui import Outline

LINE_CHARS = 110
"""A value shown on an item's line is cut to this many characters (--full: never)."""
QUIET = frozenset(
    {"sandbox", "interpreter", "snapshot", "index", "index.semantic"}
    | {f"{kind}.progress" for kind in ("index", "model", "program", "repair")}
)
"""Events shown only with --full: the run's housekeeping (progress while something ran)."""
DETAIL = frozenset({"repair.candidate"})
"""Events shown only with --full: one a candidate (their count and the outcome show)."""
DECISIONS = {"retry": "retried", "end": "the run ended", "raise": "raised"}
"""What the node error handler did (node.error's `decision`), as the trace says it."""
STATUS_STYLE = {"verified": "green", "done": "green", "checked": "yellow", "unverified": "yellow"}

Parts = list[tuple[str, str]]


def one_line(value: Any, limit: int = LINE_CHARS) -> str:
    """`value` as one line (whitespace folded), cut to `limit` characters."""
    line = " ".join(text(value).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def outline(root: Item, full: bool = False) -> Outline:
    """The run's tree as an outline for `IO.tree`."""
    return _Render(full, root.data.get("models")).run(root)


class _Render:
    def __init__(self, full: bool, models: Any) -> None:
        self.full = full
        self.models = models if isinstance(models, dict) else {}

    def short(self, value: Any, limit: int = LINE_CHARS) -> str:
        return " ".join(text(value).split()) if self.full else one_line(value, limit)

    def run(self, root: Item) -> Outline:
        d = root.data
        status = text(d.get("status")) or "?"
        parts: Parts = [(f"{text(d.get('command')) or 'run'} ", "dim"), (root.name, "bold")]
        parts += [("  ", ""), (status, STATUS_STYLE.get(status, "red" if status else ""))]
        if number(d.get("exit_code")) is not None:
            parts.append((f"  exit code {d['exit_code']}", "dim"))
        top = Outline(parts)
        if d.get("task"):
            label = "question: " if d.get("command") == "ask" else "task: "
            top.children.append(Outline([(label, "dim"), (self.short(d["task"]), "")]))
        ending = d.get("error") or d.get("message")
        if ending:
            label = "error: " if status in ("error", "interrupted") else "verdict: "
            top.children.append(Outline([(label, "dim"), (self.short(ending), "")]))
        evidence = d.get("evidence")
        if isinstance(evidence, dict) and evidence.get("description"):
            line = [("evidence: ", "dim"), (self.short(evidence["description"]), "")]
            top.children.append(Outline(line))
        top.children.append(Outline([("totals: ", "dim"), (_totals(d), "")]))
        reply = d.get("final_response") or d.get("answer")
        if reply:
            top.children.append(Outline([("reply: ", "dim"), (self.short(reply), "")]))
        if self.full and d.get("traceback"):
            top.children.append(block("traceback", d["traceback"], "red"))
        for note in listed(d.get("log_notes")):
            top.children.append(Outline([("log: ", "yellow"), (text(note), "yellow")]))
        top.children += self.children(root)
        return top

    def children(self, item: Item) -> list[Outline]:
        lines = (self.item(child, item.name) for child in item.children)
        return [line for line in lines if line is not None]

    def item(self, item: Item, parent: str) -> Outline | None:
        kind = item.kind
        if kind in ("node", "group"):
            line = Outline(_node(item))
            if self.full and item.data.get("error_traceback"):
                line.children.append(block("traceback", item.data["error_traceback"], "red"))
            line.children += self.children(item)
            return line
        if kind == "model":
            return model_line(item, self.models, self.full, self.short)
        if kind == "tool":
            return tool_line(item, parent, self.full, self.short)
        if kind == "check":
            return self.check(item)
        if kind == "verification":
            return self.verification(item)
        if kind == "verifier":
            return self.verifier(item)
        if kind == "todo":
            return _todo(item)
        if kind == "warning":
            return Outline([("warning: ", "yellow"), (self.short(item.data.get("message")), "")])
        if kind == "resumed":
            return Outline([("resumed", "yellow"), (" (a new process went on from here)", "dim")])
        if not self.full and item.name in QUIET | DETAIL:
            return None
        return self.event(item)

    def check(self, item: Item) -> Outline:
        d = item.data
        command = d.get("command")
        if isinstance(command, list) and command:
            command = [PurePath(str(command[0])).name, *map(str, command[1:])]
            command = " ".join(command)
        passed = d.get("passed") is True
        parts: Parts = [("check ", "bold"), (self.short(command, 80), "")]
        if d.get("stage") in STAGES:
            parts.append((f" ({STAGES[str(d['stage'])]})", "dim"))
        parts += [(" -> ", "dim"), ("passed" if passed else "failed", "green" if passed else "red")]
        if number(d.get("exit_code")) is not None:
            parts.append((f" exit {d['exit_code']}", "dim"))
        if d.get("timed_out") is True:
            parts.append((" timed out", "yellow"))
        parts += _duration(d)
        line = Outline(parts)
        if self.full:
            for stream in ("stdout", "stderr"):
                if d.get(stream):
                    line.children.append(block(stream, text(d[stream])))
        return line

    def verification(self, item: Item) -> Outline:
        d = item.data
        passed = d.get("passed") is True
        parts: Parts = [("verification ", "bold")]
        parts += [("passed" if passed else "failed", "green" if passed else "red")]
        if d.get("strategy"):
            parts.append((f" ({text(d['strategy'])})", "dim"))
        if d.get("reasoning"):
            parts += [(" - ", "dim"), (self.short(d["reasoning"]), "")]
        line = Outline(parts)
        checks = listed(d.get("checks"))
        for check in checks:
            line.children.append(Outline([("rests on: ", "dim"), (self.short(check), "")]))
        hints = listed(d.get("suggestions"))
        for n, hint in enumerate(hints if self.full else hints[:1]):
            label = "first difference: " if n == 0 else "also: "
            line.children.append(Outline([(label, "yellow"), (self.short(hint), "")]))
        return line

    def verifier(self, item: Item) -> Outline:
        d = item.data
        verdict = text(d.get("verdict")) or "?"
        parts: Parts = [
            ("verifier ", "bold"),
            (verdict, "green" if verdict == "VERIFIED" else "red"),
        ]
        if number(d.get("plan_iteration")) is not None:
            parts.append((f" (plan iteration {d['plan_iteration']})", "dim"))
        reasons = d.get("reasons")
        reasons = reasons if isinstance(reasons, list) else [reasons] if reasons else []
        return Outline(parts, [Outline([("- ", "dim"), (self.short(r), "")]) for r in reasons])

    def event(self, item: Item) -> Outline:
        d = dict(item.data)
        duration = _duration(d)
        d.pop("duration_s", None)
        shown = EVENTS.get(item.name)
        if shown is not None:
            return Outline([(self.short(shown(d)), "dim"), *duration])
        pairs = " ".join(f"{k}={self.short(v, 60)}" for k, v in d.items())
        return Outline([(item.name, "dim"), (f" {pairs}" if pairs else "", "dim"), *duration])


def _node(item: Item) -> Parts:
    d = item.data
    parts: Parts = [(item.name, "bold")]
    if item.kind == "group":
        parts.append((f" ({text(d.get('loop'))})", "dim"))
    if d.get("graph"):
        parts.append((f" [{text(d['graph'])} graph]", "dim"))
    if (number(d.get("iteration")) or 0) > 0:
        parts.append((f" iteration {d['iteration']}", "dim"))
    if number(d.get("round")) is not None:
        parts.append((f" round {d['round']}", "dim"))
    parts += _duration(d)
    if d.get("goto"):
        parts.append((f" -> {one_line(d['goto'], 40)}", "dim"))
    if d.get("error"):
        parts += [("  error: ", "red"), (one_line(d["error"]), "red")]
        decision = text(d.get("error_decision"))
        if decision:
            count = number(d.get("error_count"))
            then = DECISIONS.get(decision, decision)
            parts.append((f" ({then}{f'; error {count:g} of the run' if count else ''})", "dim"))
    if d.get("unfinished"):
        parts.append(("  unfinished", "yellow"))
    if d.get("no_start"):
        parts.append((" (its start is not in the log)", "dim"))
    return parts


def _duration(d: dict[str, Any]) -> Parts:
    seconds = number(d.get("duration_s"))
    return [(f"  {seconds:g}s", "dim")] if seconds is not None else []


def _totals(d: dict[str, Any]) -> str:
    parts = [f"model calls {text(d.get('model_calls', 0))}"]
    tokens = f"{text(d.get('prompt_tokens', 0))}+{text(d.get('completion_tokens', 0))}"
    cached = number(d.get("cached_prompt_tokens"))
    parts.append(f"tokens {tokens}" + (f" ({cached:g} cached)" if cached else ""))
    if number(d.get("iterations")) is not None:
        parts.append(f"iterations {d['iterations']}")
    if number(d.get("wall_s")) is not None:
        parts.append(f"wall time {d['wall_s']:g}s")
    if d.get("profile"):
        parts.append(f"profile {text(d['profile'])}")
    changed = d.get("files_changed")
    if isinstance(changed, list):
        parts.append(f"changed {', '.join(map(text, changed)) or 'nothing'}")
    return " · ".join(parts)


def _todo(item: Item) -> Outline:
    items = item.data.get("items")
    items = listed(items)
    marks = {"done": "[x]", "in_progress": "[>]", "pending": "[ ]"}
    lines, done = [], 0
    for entry in items:
        entry = entry if isinstance(entry, dict) else {"text": entry}
        status = text(entry.get("status"))
        done += status == "done"
        style = "green" if status == "done" else "bold" if status == "in_progress" else ""
        mark = marks.get(status, f"[{status}]")
        lines.append(Outline([(f"{mark} ", "dim"), (one_line(entry.get("text")), style)]))
    return Outline([("todo ", "bold"), (f"{done}/{len(items)} done", "dim")], lines)


EVENTS = {
    "scope": lambda d: (
        f"edit scope: targets {_names(d.get('targets'))}; "
        f"the checks judge by {_names(d.get('oracle'))}"
        + (f"; named but locked: {_names(d['locked'])}" if d.get("locked") else "")
    ),
    "file.write": lambda d: f"wrote {text(d.get('path'))} ({text(d.get('lines')) or '?'} lines)",
    "plan.decision": lambda d: (
        f"plan: {text(d.get('action'))} {text(d.get('agent'))}"
        + (f" (route {text(d['route'])})" if d.get("route") else "")
        + f": {text(d.get('reasoning'))}"
    ),
    "ask.route": lambda d: f"ask: {text(d.get('route'))} ({text(d.get('reason'))})",
    "ask.plan": lambda d: f"ask plan: {text(d.get('steps'))}",
    "ask.step": lambda d: (
        f"step {text(d.get('step'))}/{text(d.get('of'))}: " + text(d.get("instruction"))
    ),
    "ask.decision": lambda d: f"{text(d.get('decision'))}: {text(d.get('reason'))}",
    "repair": lambda d: (
        f"repair search: {text(d.get('change')) or 'nothing found'} "
        f"({text(d.get('tried'))} candidates tried from {text(d.get('candidates'))} single edits"
        + (f"; {text(d['reason'])}" if d.get("reason") else "")
        + ")"
    ),
    "sample.candidate": lambda d: (
        f"candidate {text(d.get('index'))}: {text(d.get('status'))}"
        + (f" - {text(d['why'])}" if d.get("why") else "")
    ),
    "sample.end": lambda d: (
        f"sampling: {text(d.get('passed'))} of {text(d.get('candidates'))} candidates passed"
    ),
    "crosscheck.end": lambda d: text(d.get("line")),
    "approval": lambda d: (
        f"approval: {text(d.get('what'))} -> {'yes' if d.get('approved') is True else 'no'}"
    ),
}
"""One-line forms of a few common events; any other shows as `kind key=value ...`."""


def _names(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(text, value)) or "none"
    return text(value) or "?"
