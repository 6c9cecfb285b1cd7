"""The live line: on a terminal, one transient line saying what runs now and for how long
(a model call with its tokens and rate, a check's program, the repair search with the
candidates it tried). It follows the events (`LiveLine.follow`: the `.start` and
`.progress` events of each); the next line printed, or an event of something else,
takes it away. Only `codur.ui.IO` uses it: a terminal only, never in --verbose (which
prints every event instead)."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.text import Text

from codur.eventlines import repair_detail, short

PROGRAM_SHOWN_AFTER_S = 1.0
"""A check's program gets a live line once it has run this long (most take less)."""


def model_detail(data: dict[str, Any]) -> str:
    """A `model.progress` event as the live line's detail: the reply's tokens and rate,
    or, before the reply starts, the prompt tokens evaluated."""
    if "tokens" in data:
        rate = data.get("tokens_per_s")
        return f"{data['tokens']} tokens" + (f", {rate:g} tokens/s" if rate else "")
    if "prompt_total" in data:
        return f"prompt {data['prompt_done']}/{data['prompt_total']} tokens"
    return ""


class LiveLine:
    """A transient line on `console` (a terminal): label, elapsed seconds, detail."""

    def __init__(self, console: Console, clean: Any = str) -> None:
        self._console = console
        self._clean = clean
        """Makes event text fit for the terminal (the IO's `_plain`)."""
        self._live: Live | None = None
        self._label = self._detail = ""
        self._since = 0.0
        self._after_s = 0.0
        self._tried = self._total = 0
        """The repair search's candidates tried so far, and its single edits."""

    def __rich__(self) -> Text:
        elapsed = time.monotonic() - self._since
        if elapsed < self._after_s:
            return Text("")
        detail = f" · {self._detail}" if self._detail else ""
        return Text(f"{self._label}: {elapsed:.0f} s{detail}", style="dim")

    def show(self, label: str, detail: str = "", since: float | None = None, after_s=0.0) -> None:
        """Show `label` (running since `since`, a monotonic time; default now) with
        `detail`, after `after_s` seconds; the same label only gets the new detail."""
        label, detail = self._clean(label), self._clean(detail)
        if self._live is not None and label == self._label:
            self._detail = detail
            return
        self.stop()
        self._label, self._detail, self._after_s = label, detail, after_s
        self._since = time.monotonic() if since is None else since
        self._live = Live(
            self,
            console=self._console,
            transient=True,
            refresh_per_second=4,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()

    def stop(self) -> None:
        """Take the line away (nothing when none is shown)."""
        if self._live is not None:
            live, self._live = self._live, None
            live.stop()

    def follow(self, kind: str, data: dict[str, Any]) -> None:
        """Show what the event `kind` says runs now; any other event takes the line away."""
        if kind == "model.request":
            self.show(f"model {data.get('profile', '')} #{data.get('call', '')}")
        elif kind == "model.progress":
            since = time.monotonic() - float(data.get("elapsed_s", 0))
            label = f"model {data.get('profile', '')} #{data.get('call', '')}"
            self.show(label, model_detail(data), since)
        elif kind == "repair.start":
            self._tried, self._total = 0, int(data.get("candidates", 0))
            self.show("repair search", f"0/{self._total} candidates tried")
        elif kind == "repair.candidate" and self._label == "repair search":
            self._tried += 1
            self.show("repair search", f"{self._tried}/{self._total} candidates tried")
        elif kind == "repair.progress":
            since = time.monotonic() - float(data.get("elapsed_s", 0))
            self._tried, self._total = int(data.get("tried", 0)), int(data.get("candidates", 0))
            self.show("repair search", repair_detail(data), since)
        elif kind in ("program.start", "program.progress"):
            command = short(" ".join(str(part) for part in data.get("command", [])), 80)
            since = time.monotonic() - float(data.get("elapsed_s", 0))
            self.show(f"running {command}", since=since, after_s=PROGRAM_SHOWN_AFTER_S)
        else:
            self.stop()
