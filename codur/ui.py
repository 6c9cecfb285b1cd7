"""The one module that prints. Everything else emits events or returns data.

Modes: human (rich; colour only on a terminal and never with NO_COLOR), verbose (every
event rendered live, a model's reply streamed as it comes), and --json (JSONL events on
stdout, human output on stderr). On a terminal, outside --verbose, a transient live line
says what runs now (codur.liveline).

Text that reaches the terminal never carries control sequences (`codur.terminal_text`),
nor a known secret: every line, error, table, tree, diff and JSON goes through the IO's
`Redactor` (`codur.redaction`), as the debug log does. A closed output (EPIPE) stops the
run quietly (`codur.interrupt.output_closed`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.markup import escape

from codur.eventlines import ENDINGS_SAID_ONCE, PROGRESS, VERBOSE, short
from codur.events import EVENT_SCHEMA, Event
from codur.liveline import LiveLine
from codur.redaction import Redactor
from codur.terminal_text import clean, cut_lines, json_text


@dataclass
class Outline:
    """A tree for `IO.tree`: one line, as (text, style) parts, and the lines under it (a
    part may hold several lines of text, shown indented under its line)."""

    parts: list[tuple[str, str]]
    children: list[Outline] = field(default_factory=list)


def output_width() -> int:
    """The width output that is no terminal is laid out at: $COLUMNS, else 200 (not 80)."""
    return int(os.environ.get("COLUMNS", "200"))


class _Console(Console):
    """A Rich console whose closed output stops Codur as a closed output does everywhere
    (exit code 141, `codur.interrupt.output_closed`); Rich's own exits with 1."""

    def on_broken_pipe(self) -> None:
        from codur.interrupt import output_closed

        self.quiet = True
        devnull = os.open(os.devnull, os.O_WRONLY)  # nothing more to flush at exit
        stream = sys.stderr if self.stderr else sys.stdout
        os.dup2(devnull, stream.fileno())
        raise output_closed()


def _console(stderr: bool) -> Console:
    """Rich decides colour (terminal or not); with NO_COLOR set no style at all is sent
    (rich's own NO_COLOR drops colours but keeps bold: the prompt's `[y/n]`); piped
    output is not wrapped at 80."""
    plain = {"color_system": None} if os.environ.get("NO_COLOR") else {}
    console = _Console(stderr=stderr, highlight=False, soft_wrap=True, **plain)
    if not console.is_terminal:
        console.width = output_width()
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
        stdout_free = not (json_mode and sys.stdout.isatty())  # no JSON across the line
        live = self.err.is_terminal and not verbose and stdout_free
        self.live = LiveLine(self.err, self._plain) if live else None
        """The live line (a terminal only)."""
        self._streamed: str | None = None
        """--verbose: the reply text streamed so far of the model call under way."""

    # -- events -------------------------------------------------------------------------
    ended = False
    """--json: a run's or a question's end record was written (by any IO of the process)."""

    def on_event(self, event: Event) -> None:
        if self.json_mode:
            IO.ended = IO.ended or event.kind in ("run.end", "ask.end")
            record = {
                "ts": round(event.ts, 3),
                "event": event.kind,
                **self.redact(event.data, 2000),
                "schema": EVENT_SCHEMA,
            }
            try:
                sys.stdout.write(json.dumps(record, default=str) + "\n")
                sys.stdout.flush()
            except BrokenPipeError:
                from codur.interrupt import output_closed

                raise output_closed() from None
        if self.live is not None:
            self.live.follow(event.kind, event.data)
        if event.kind == "model.progress":
            if self.verbose and event.data.get("text"):
                self._stream(str(event.data["text"]))
            return
        if self._streamed is not None:
            self._end_stream(event)
        if event.kind == "warning":  # one line, whatever the mode
            self.warn(str(event.data.get("message", "")))
            return
        if event.kind == "run.end" and event.data.get("status") in ENDINGS_SAID_ONCE:
            return
        if self.verbose or event.kind in PROGRESS:
            data = self.redact(event.data, 2000)
            render = VERBOSE.get(event.kind)
            text = (
                render(data)
                if render
                else f"{event.kind} " + " ".join(f"{k}={short(v, 60)}" for k, v in data.items())
            )
            self._print(self.out, f"[dim]·[/dim] {self._markup(text)}")

    def _stream(self, text: str) -> None:
        """--verbose: more of the model's reply, printed as it comes."""
        if self._streamed is None:
            self._streamed = ""
            self._print(self.out, "[dim]·[/dim] ", end="")
        self._streamed += text
        self._print(self.out, self._plain(text), end="", markup=False, highlight=False)

    def _end_stream(self, event: Event) -> None:
        """--verbose: the rest of a streamed reply once the model answered, and its line
        ended."""
        streamed, self._streamed = self._streamed or "", None
        content = event.data.get("content") if event.kind == "model.response" else None
        rest = content[len(streamed) :] if isinstance(content, str) else ""
        if isinstance(content, str) and content.startswith(streamed) and rest:
            self._print(self.out, self._plain(rest), end="", markup=False, highlight=False)
        self._print(self.out, "")

    def _print(self, console: Console, *what: Any, **options: Any) -> None:
        """Print (after taking the live line away), or stop the run quietly if the output
        was closed."""
        if self.live is not None:
            self.live.stop()
        try:
            console.print(*what, **options)
        except BrokenPipeError:
            from codur.interrupt import output_closed

            raise output_closed() from None

    # -- human output ---------------------------------------------------------------------
    def _plain(self, text: str) -> str:
        """`text` fit for the terminal: no secret, no control sequence."""
        return clean(self.redact.text(text))

    def _markup(self, text: str) -> str:
        """`text` fit for rich: no secret, no control sequence, no markup."""
        return escape(self._plain(text))

    def info(self, text: str) -> None:
        self._print(self.out, self._markup(text))

    def success(self, text: str) -> None:
        self._print(self.out, f"[green]{self._markup(text)}[/green]")

    def caution(self, text: str) -> None:
        """A result that holds with weaker evidence (status `checked`): yellow, on stdout."""
        self._print(self.out, f"[yellow]{self._markup(text)}[/yellow]")

    def warn(self, text: str) -> None:
        self._print(self.err, f"[yellow]codur: warning:[/yellow] {self._markup(text)}")

    def error(self, text: str) -> None:
        self._print(self.err, f"[red]codur: error:[/red] {self._markup(text)}")

    def diff(self, text: str, max_lines: int | None = None) -> None:
        """A unified diff, cut after `max_lines` lines (with a line saying how many more)."""
        if not text:
            return
        from rich.syntax import Syntax

        text = cut_lines(self._plain(text), max_lines, "diff", "display.max_diff_lines")
        diff = Syntax(text, "diff", theme="ansi_dark", background_color="default")
        self._print(self.out, diff)

    def table(self, title: str, columns: list[str], rows: list[list[str]], whole: int = 0) -> None:
        """A table. Its first `whole` columns (ids to copy) are never folded, nor is any
        word of the others (a run id in a note): where the terminal is too narrow for
        that, each row is printed as a block of `column: value` lines instead."""
        from rich.table import Table

        from codur.columns import cell_widths, fit

        heads = [self._plain(c) for c in columns]
        cells = [[self._plain(c) for c in row] for row in rows]
        measured = [cell_widths([h, *(row[i] for row in cells)]) for i, h in enumerate(heads)]
        mins = [hi if i < whole else lo for i, (lo, hi) in enumerate(measured)]
        room = self.out.width - 3 * len(columns) + 1  # padding and separators
        widths = fit(mins, [hi for _, hi in measured], room) if whole else None
        if whole and widths is None:
            lines = [self._plain(title)]
            for row in cells:
                lines.append(row[0])
                lines += [f"  {c}: {v}" for c, v in zip(heads[1:], row[1:], strict=True) if v]
            self._print(self.out, "\n".join(lines), markup=False, highlight=False)
            return
        table = Table(title=self._plain(title), title_justify="left", show_edge=False)
        for index, head in enumerate(heads):
            width = widths[index] if widths else None
            table.add_column(head, overflow="fold", no_wrap=index < whole, width=width)
        for row in rows:
            table.add_row(*(self._markup(cell) for cell in row))
        self._print(self.out, table)

    def tree(self, root: Outline) -> None:
        """An outline drawn as a tree (rich); its text is shown as is: no markup, no
        control sequences."""
        from rich.text import Text
        from rich.tree import Tree

        def label(line: Outline) -> Text:
            text = Text()
            for part, style in line.parts:
                text.append(self._plain(part), style=style or None)
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
        from rich.text import Text

        if self.live is not None:
            self.live.stop()
        if detail:  # a file's text: no terminal sequence of its own reaches the terminal
            text = self._plain(detail)
            shown = Syntax(text, "diff", theme="ansi_dark", background_color="default")
            self.err.print(shown)
        return Confirm.ask(Text(self._plain(question)), console=self.err, default=False)

    @contextmanager
    def progress(self, total: int, what: str) -> Iterator[Callable[[object], None]]:
        """A progress bar on stderr; yields a callable that marks one item done."""
        from rich.progress import Progress

        if self.live is not None:
            self.live.stop()
        with Progress(console=self.err, transient=False) as bar:
            task = bar.add_task(self._markup(what), total=total)
            yield lambda _item: bar.advance(task)

    def raw(self, text: str) -> None:
        """Text printed as is (e.g. YAML), without markup (control sequences removed)."""
        self._print(self.out, self._plain(text), markup=False, highlight=False, emoji=False)

    def json(self, value: Any) -> None:
        """`value` as indented JSON (`json_text`: control characters escaped, not removed)."""
        text = self.redact.text(json_text(value))
        self._print(self.out, text, markup=False, highlight=False, emoji=False)


class SilentIO(IO):
    """No terminal output and nobody to ask (the Python API without `verbose`): warnings
    go to the `codur` logger."""

    def on_event(self, event: Event) -> None:
        if event.kind == "warning":
            self.warn(str(event.data.get("message", "")))

    def _print(self, console: Console, *what: Any, **options: Any) -> None:
        return None

    def warn(self, text: str) -> None:
        import logging

        logging.getLogger("codur").warning(self.redact.text(text))
