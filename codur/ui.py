"""The one module that prints. Everything else emits events or returns data.

Modes: human (rich; colour only on a terminal and never with NO_COLOR), verbose (every
event rendered live), and --json (JSONL events on stdout, human output on stderr).

Text that reaches the terminal never carries control sequences (a model's reply or a
program's output could move the cursor, retitle the window or hide text): escape
sequences and control characters other than newline and tab are removed. A closed
output (EPIPE) stops the run quietly (`codur.interrupt.output_closed`).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape

from codur.events import Event
from codur.log import Redactor

_CONTROL = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|[ -/]*[0-~])?|\x9b[0-?]*[ -/]*[@-~]|\x9d[^\x07\x9c]*[\x07\x9c]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
"""ESC sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-character ones), their 8-bit
forms (CSI 0x9b, OSC 0x9d), and C0/C1 control characters except tab and newline."""


def clean(text: str) -> str:
    """`text` without terminal control sequences (see the module docstring)."""
    return _CONTROL.sub("", text)


def cut_lines(text: str, max_lines: int | None, what: str, key: str) -> str:
    """`text` cut after `max_lines` lines, with a line saying how many more there were."""
    lines = text.split("\n")
    if max_lines is None or len(lines) <= max_lines:
        return text
    more = f"... {what} cut: {len(lines) - max_lines} more lines ({key})"
    return "\n".join([*lines[:max_lines], more])


def _markup(text: str) -> str:
    """Plain text made safe for rich: no control sequences, no markup."""
    return escape(clean(text))


def _short(value: Any, limit: int = 160) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _model_response(d: dict[str, Any]) -> str:
    calls = ", ".join(c["name"] for c in d.get("tool_calls", []))
    what = f"tool calls: {calls}" if calls else _short(d.get("content", ""), 100)
    return (
        f"model {d['profile']} #{d['call']}: {d.get('prompt_tokens', 0)}+"
        f"{d.get('completion_tokens', 0)} tokens in {d['duration_s']}s - {what}"
    )


TODO_MARKS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
"""As codur.tools.todo draws a checklist (not imported: `codur --help` loads this module
and must not load LangChain)."""


def _todos(d: dict[str, Any]) -> str:
    """The todo list as one checklist line: `todo 1/3: [x] read | [~] fix | [ ] run`."""
    items = d.get("items", [])
    done = sum(i.get("status") == "done" for i in items)
    shown = " | ".join(
        f"{TODO_MARKS.get(i.get('status', ''), '[?]')} {_short(i.get('text', ''), 40)}"
        for i in items
    )
    return f"todo {done}/{len(items)}: {shown or '(empty)'}"


def _plan(d: dict[str, Any]) -> str:
    steps = " | ".join(f"{n}. {_short(s, 50)}" for n, s in enumerate(d.get("steps", []), 1))
    return f"plan {d.get('plan_iteration', '?')}: {steps}"


def _verdict(d: dict[str, Any]) -> str:
    reasons = "; ".join(d.get("reasons", []))
    return f"verifier (plan {d.get('plan_iteration', '?')}): {d.get('verdict', '?')}" + (
        f" - {_short(reasons, 200)}" if reasons else ""
    )


# How each event kind looks in --verbose; kinds not listed are shown as key=value pairs.
VERBOSE: dict[str, Callable[[dict[str, Any]], str]] = {
    "run.start": lambda d: (
        f"run {d.get('run_id', '')} in {d.get('workdir', '')}: {_short(d.get('task', ''))}"
    ),
    "model.load.start": lambda d: f"loading model for profile {d['profile']} ({d['endpoint']})",
    "model.load.end": lambda d: f"model ready in {d['duration_s']}s",
    "model.request": lambda d: (
        f"model {d['profile']} #{d['call']}: {len(d.get('messages', []))} messages"
    ),
    "model.response": _model_response,
    "model.retry": lambda d: f"retry {d['attempt']} in {d['delay_s']}s after {d['error']}",
    "model.fallback": lambda d: (
        f"profile {d['profile']} unreachable ({_short(d['error'], 120)}): using {d['to']}"
    ),
    "agent.fallback": lambda d: (
        f"{d['agent']} failed ({_short(d['error'], 160)}): {d['to']} takes over"
    ),
    "agent.run.start": lambda d: f"{d['agent']}: {' '.join(d.get('command', []))}",
    "agent.run.end": lambda d: (
        f"{d['agent']} ended in {d['duration_s']}s"
        + (" (timed out)" if d.get("timed_out") else f" (exit code {d.get('exit_code')})")
    ),
    "agent.ready": lambda d: f"{d['agent']}: Ollama at {d['host']} has {d['model']}",
    "verify.run": lambda d: (
        f"verify: {' '.join(d.get('command', []))} -> "
        f"{'passed' if d.get('passed') else 'failed'} in {d.get('duration_s')}s"
    ),
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
    "sandbox": lambda d: (
        f"programs confined by {d['confine']} (writes: their folder and a private temp folder)"
        if d.get("confine") != "none"
        else f"programs are not confined: {d.get('unconfined', '')}"
    ),
    "index.semantic": lambda d: (
        f"semantic code search off: {d['off']}"
        if d.get("off")
        else f"semantic code search on: {d['model']} fused with BM25"
    ),
    "index.progress": lambda d: (
        f"index: {d.get('stage', '')} {d['done']}/{d['total']} ({d.get('seconds', 0)}s)"
    ),
    "litter.removed": lambda d: (
        f"removed what an interrupted run left: {', '.join([*d['files'], *d['temp']])}"
    ),
    "file.write": lambda d: f"wrote {d['path']} ({d.get('lines', '?')} lines)",
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
}

ENDINGS_SAID_ONCE = frozenset({"interrupted", "error"})
"""run.end statuses that `codur.cli.main` reports in its one error line; the verbose trace
does not say them again."""

# The few events a normal (non-verbose) run shows as progress.
PROGRESS = {
    "model.load.start",
    "model.response",
    "model.fallback",
    "agent.fallback",
    "agent.run.end",
    "verify.run",
    "file.write",
    "repair.end",
    "plan.steps",
    "todo.updated",
    "verifier.verdict",
}


@dataclass
class Outline:
    """A tree for `IO.tree`: one line, as (text, style) parts, and the lines under it (a
    part may hold several lines of text, shown indented under its line)."""

    parts: list[tuple[str, str]]
    children: list[Outline] = field(default_factory=list)


def _console(stderr: bool) -> Console:
    """Rich decides colour (NO_COLOR, terminal or not); piped output is not wrapped at 80."""
    console = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = int(os.environ.get("COLUMNS", "200"))
    return console


class IO:
    def __init__(
        self, *, verbose: bool = False, json_mode: bool = False, redact: Redactor | None = None
    ) -> None:
        self.verbose = verbose
        self.json_mode = json_mode
        self.redact = redact or Redactor()
        self.out = _console(stderr=json_mode)
        self.err = _console(stderr=True)

    # -- events -------------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        if self.json_mode:
            record = {
                "ts": round(event.ts, 3),
                "event": event.kind,
                **self.redact(event.data, 2000),
            }
            try:
                sys.stdout.write(json.dumps(record, default=str) + "\n")
                sys.stdout.flush()
            except BrokenPipeError:
                from codur.interrupt import output_closed

                raise output_closed() from None
        if event.kind == "warning":  # one line, whatever the mode
            self.warn(self.redact(event.data.get("message", "")))
            return
        if event.kind == "run.end" and event.data.get("status") in ENDINGS_SAID_ONCE:
            return
        if self.verbose or event.kind in PROGRESS:
            data = self.redact(event.data, 2000)
            render = VERBOSE.get(event.kind)
            text = (
                render(data)
                if render
                else f"{event.kind} " + " ".join(f"{k}={_short(v, 60)}" for k, v in data.items())
            )
            self._print(self.out, f"[dim]·[/dim] {_markup(text)}")

    def _print(self, console: Console, *what: Any, **options: Any) -> None:
        """Print, or stop the run quietly if the output was closed."""
        try:
            console.print(*what, **options)
        except BrokenPipeError:
            from codur.interrupt import output_closed

            raise output_closed() from None

    # -- human output ---------------------------------------------------------------------
    def info(self, text: str) -> None:
        self._print(self.out, _markup(text))

    def success(self, text: str) -> None:
        self._print(self.out, f"[green]{_markup(text)}[/green]")

    def warn(self, text: str) -> None:
        self._print(self.err, f"[yellow]codur: warning:[/yellow] {_markup(text)}")

    def error(self, text: str) -> None:
        self._print(self.err, f"[red]codur: error:[/red] {_markup(self.redact(text))}")

    def diff(self, text: str, max_lines: int | None = None) -> None:
        """A unified diff, cut after `max_lines` lines (with a line saying how many more)."""
        if not text:
            return
        from rich.syntax import Syntax

        text = cut_lines(clean(text), max_lines, "diff", "display.max_diff_lines")
        diff = Syntax(text, "diff", theme="ansi_dark", background_color="default")
        self._print(self.out, diff)

    def table(self, title: str, columns: list[str], rows: list[list[str]]) -> None:
        from rich.table import Table

        table = Table(title=clean(title), title_justify="left", show_edge=False)
        for column in columns:
            table.add_column(clean(column), overflow="fold")
        for row in rows:
            table.add_row(*(_markup(cell) for cell in row))
        self._print(self.out, table)

    def tree(self, root: Outline) -> None:
        """An outline drawn as a tree (rich); its text is shown as is: no markup, no
        control sequences."""
        from rich.text import Text
        from rich.tree import Tree

        def label(line: Outline) -> Text:
            text = Text()
            for part, style in line.parts:
                text.append(clean(part), style=style or None)
            return text

        def grow(branch: Tree, line: Outline) -> None:
            for child in line.children:
                grow(branch.add(label(child)), child)

        top = Tree(label(root), guide_style="dim")
        grow(top, root)
        self._print(self.out, top, soft_wrap=False)  # long lines wrap under their guides

    def confirm(self, question: str, detail: str = "") -> bool:
        """Ask on the terminal (stderr), after showing `detail` (a diff); the default
        answer is no."""
        from rich.prompt import Confirm
        from rich.syntax import Syntax

        if detail:
            self.err.print(Syntax(detail, "diff", theme="ansi_dark", background_color="default"))
        return Confirm.ask(question, console=self.err, default=False)

    @contextmanager
    def progress(self, total: int, what: str) -> Iterator[Callable[[object], None]]:
        """A progress bar on stderr; yields a callable that marks one item done."""
        from rich.progress import Progress

        with Progress(console=self.err, transient=False) as bar:
            task = bar.add_task(what, total=total)
            yield lambda _item: bar.advance(task)

    def raw(self, text: str) -> None:
        """Text printed as is (e.g. YAML), without markup (control sequences removed)."""
        self._print(self.out, clean(text), markup=False, highlight=False, emoji=False)


class SilentIO(IO):
    """No terminal output and nobody to ask (the Python API without `verbose`): warnings
    go to the `codur` logger."""

    def on_event(self, event: Event) -> None:
        if event.kind == "warning":
            self.warn(self.redact(event.data.get("message", "")))

    def _print(self, console: Console, *what: Any, **options: Any) -> None:
        return None

    def warn(self, text: str) -> None:
        import logging

        logging.getLogger("codur").warning(text)
