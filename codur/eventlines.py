"""How events read in the terminal: a line per event kind for --verbose (`VERBOSE`), the
few kinds a normal run shows as progress (`PROGRESS`), and `short`, a one-line excerpt.
Plain strings: `codur.ui` escapes and prints them."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import PurePath
from typing import Any


def short(value: Any, limit: int = 160) -> str:
    """`value` on one line (whitespace runs made one space), cut to `limit` with "..."."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _model_response(d: dict[str, Any]) -> str:
    calls = ", ".join(c["name"] for c in d.get("tool_calls", []))
    what = f"tool calls: {calls}" if calls else short(d.get("content", ""), 100)
    return (
        f"model {d['profile']} #{d['call']}: {d.get('prompt_tokens', 0)}+"
        f"{d.get('completion_tokens', 0)} tokens in {d['duration_s']}s - {what}"
    )


STAGES = {
    "failing": "the tests that failed",
    "related": "the tests of the changed code",
    "suite": "the whole suite",
}
"""The stages of the project's tests (codur/verify/tests_check.py), as a run shows them."""


def _verify_run(d: dict[str, Any]) -> str:
    stage = f" ({STAGES[d['stage']]})" if d.get("stage") in STAGES else ""
    cut = " (stopped at verify.suite_budget_s)" if d.get("cut") else ""
    if d.get("stopped_at_line") is not None:
        cut = f" (stopped at output line {d['stopped_at_line']}: it cannot match)"
    return (
        f"verify{stage}: {shlex.join(d.get('command', []))} -> "
        f"{'passed' if d.get('passed') else 'failed'} in {d.get('duration_s')}s{cut}"
    )


TODO_MARKS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
"""As codur.tools.todo draws a checklist (not imported: `codur --help` loads this module
and must not load LangChain)."""


def _todos(d: dict[str, Any]) -> str:
    """The todo list as one checklist line: `todo 1/3: [x] read | [~] fix | [ ] run`."""
    items = d.get("items", [])
    done = sum(i.get("status") == "done" for i in items)
    shown = " | ".join(
        f"{TODO_MARKS.get(i.get('status', ''), '[?]')} {short(i.get('text', ''), 40)}"
        for i in items
    )
    return f"todo {done}/{len(items)}: {shown or '(empty)'}"


def _plan(d: dict[str, Any]) -> str:
    steps = " | ".join(f"{n}. {short(s, 50)}" for n, s in enumerate(d.get("steps", []), 1))
    return f"plan {d.get('plan_iteration', '?')}: {steps}"


def _verdict(d: dict[str, Any]) -> str:
    reasons = "; ".join(d.get("reasons", []))
    return f"verifier (plan {d.get('plan_iteration', '?')}): {d.get('verdict', '?')}" + (
        f" - {short(reasons, 200)}" if reasons else ""
    )


def repair_detail(data: dict[str, Any]) -> str:
    """A `repair.progress` event as the live line's detail: the stage, the candidates tried."""
    if data.get("stage") == "tracing":
        return "tracing the checks"
    tried = f"{data.get('tried', 0)}/{data.get('candidates', 0)} candidates tried"
    return tried + (" (pairs of edits)" if data.get("stage") == "pairs" else "")


# How each event kind looks in --verbose; kinds not listed are shown as key=value pairs.
VERBOSE: dict[str, Callable[[dict[str, Any]], str]] = {
    "run.start": lambda d: (
        f"run {d.get('run_id', '')} in {d.get('workdir', '')}: {short(d.get('task', ''))}"
    ),
    "model.load.start": lambda d: f"loading model for profile {d['profile']} ({d['endpoint']})",
    "model.load.end": lambda d: f"model ready in {d['duration_s']}s",
    "model.request": lambda d: (
        f"model {d['profile']} #{d['call']}: {len(d.get('messages', []))} messages"
    ),
    "model.response": _model_response,
    "model.retry": lambda d: f"retry {d['attempt']} in {d['delay_s']}s after {d['error']}",
    "model.fallback": lambda d: (
        f"profile {d['profile']} unreachable ({short(d['error'], 120)}): using {d['to']}"
    ),
    "agent.fallback": lambda d: (
        f"{d['agent']} failed ({short(d['error'], 160)}): {d['to']} takes over"
    ),
    "agent.run.start": lambda d: f"{d['agent']}: {shlex.join(d.get('command', []))}",
    "agent.run.end": lambda d: (
        f"{d['agent']} ended in {d['duration_s']}s"
        + (" (timed out)" if d.get("timed_out") else f" (exit code {d.get('exit_code')})")
    ),
    "agent.ready": lambda d: f"{d['agent']}: Ollama at {d['host']} has {d['model']}",
    "verify.run": lambda d: _verify_run(d),
    "verify.result": lambda d: (
        f"verification ({d['strategy']}): {'passed' if d['passed'] else 'failed'}"
        f" - {d.get('reasoning', '')}"
    ),
    "repair.start": lambda d: (
        f"repair search: {d['candidates']} candidate edits in {', '.join(d['files'])}"
        f" (budget {d['budget_s']}s)"
    ),
    "repair.candidate": lambda d: (
        f"  {'PASS' if d['passed'] else 'fail'} {d['change']} ({d['duration_s']}s)"
    ),
    "repair.end": lambda d: (
        f"repair search: {d['change']} ({d['tried']} tried, {d['duration_s']}s)"
        if d.get("change")
        else f"repair search: nothing found ({d['reason']}; {d['tried']} candidates tried "
        f"from {d['candidates']} single edits, {d['duration_s']}s)"
    ),
    "repair.review": lambda d: (
        f"repair review ({d['by']}): {d['verdict']}: {d['change']} - {short(d['reason'], 200)}"
    ),
    "crosscheck.end": lambda d: f"{d['line']} ({d['duration_s']}s)",
    "sandbox": lambda d: (
        f"programs confined by {d['confine']} (writes: their folder and a private temp folder"
        + (
            f", not {' or '.join(PurePath(p).name for p in d['read_only'])}"
            if d.get("read_only")
            else ""
        )
        + (f"; {d['git_writable']}" if d.get("git_writable") else "")
        + ")"
        if d.get("confine") != "none"
        else f"programs are not confined: {d.get('unconfined', '')}"
    ),
    "interpreter": lambda d: (
        f"python: {d['path']} ("
        + (f"Python {d['version']}" if d.get("version") else "not runnable")
        + (f", pytest {d['pytest']}" if d.get("pytest") else ", no pytest")
        + f"; {d['where']})"
    ),
    "index.semantic": lambda d: (
        f"semantic code search off: {d['off']}"
        if d.get("off")
        else f"semantic code search on: {d['model']} fused with BM25"
    ),
    "context.located": lambda d: (
        "located: "
        + (
            "; ".join(f"{f['path']}:{f['line']} {f['name']} ({f['why']})" for f in d["found"])
            + (f"; shown in part: {', '.join(d['parts'])}" if d.get("parts") else "")
        )
    ),
    "index.progress": lambda d: (
        f"index: {d.get('stage', '')} {d['done']}/{d['total']} ({d.get('seconds', 0)}s)"
    ),
    "litter.removed": lambda d: (
        f"removed what an interrupted run left: {', '.join([*d['files'], *d['temp']])}"
    ),
    "file.write": lambda d: f"wrote {d['path']} ({d.get('lines', '?')} lines)",
    "scope.locked": lambda d: (
        f"{d['path']} stays as it is: the task names it but does not ask to change it, "
        f"and the check judges by it (to let this run change it: --allow-edit {d['path']})"
    ),
    "scope.refused": lambda d: f"edit of {d['path']} refused: {short(d['reason'], 240)}",
    "edit.refused": lambda d: f"edit of {d['path']} refused: {short(d['reason'], 240)}",
    "snapshot": lambda d: (
        f"snapshot ({d['stage']}, {d['store']}): {d['files']} files in {d['duration_s']}s"
    ),
    "approval": lambda d: (
        f"approval ({d['mode']}): {d['what']} -> {'yes' if d['approved'] else 'no'}"
    ),
    "run.end": lambda d: f"run ended: {d['status']} (exit code {d.get('exit_code')})",
    "todo.updated": _todos,
    "plan.steps": _plan,
    "verifier.verdict": _verdict,
    "agent.reminded": lambda d: f"agent replied without a tool call: reminded (round {d['round']})",
    "node.start": lambda d: f"-> {d['node']} (iteration {d.get('iteration', '-')})",
    "node.end": lambda d: (
        f"<- {d['node']} {d['duration_s']}s" + (f" error: {d['error']}" if "error" in d else "")
    ),
    "program.start": lambda d: f"$ {short(' '.join(map(str, d.get('command', []))), 120)}",
    "program.progress": lambda d: (
        f"$ {short(' '.join(map(str, d.get('command', []))), 80)}: running {d['elapsed_s']}s"
    ),
    "repair.progress": lambda d: f"repair search: {repair_detail(d)} ({d['elapsed_s']}s)",
    "program.end": lambda d: (
        f"$ done in {d['duration_s']}s" + (f" error: {d['error']}" if "error" in d else "")
    ),
}

ENDINGS_SAID_ONCE = frozenset({"interrupted", "error"})
"""run.end statuses that `codur.cli.main` reports in its one error line; the verbose trace
does not say them again."""

# The few events a normal (non-verbose) run shows as progress.
PROGRESS = {
    "interpreter",
    "model.load.start",
    "model.response",
    "model.fallback",
    "agent.fallback",
    "agent.run.end",
    "verify.run",
    "file.write",
    "scope.locked",
    "scope.refused",
    "edit.refused",
    "repair.end",
    "repair.review",
    "crosscheck.end",
    "plan.steps",
    "todo.updated",
    "verifier.verdict",
}
