"""A run's trace as text: exactly what `codur trace` prints (the same command, its
output kept instead of printed), for the Python API's `Result.trace()`."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from codur.traces.commands import trace
from codur.ui import IO, output_width


class CapturedIO(IO):
    """IO whose standard output is kept as plain text (no colour), `text()`, at the width
    the command line prints at when its output is no terminal."""

    def __init__(self) -> None:
        super().__init__()
        self._buffer = io.StringIO()
        self.out = Console(
            file=self._buffer,
            width=output_width(),
            color_system=None,
            highlight=False,
            soft_wrap=True,
        )
        self.live = None

    def text(self) -> str:
        return self._buffer.getvalue()


def trace_text(log: Path, run_id: str, full: bool = False) -> str:
    """Run `run_id` of the debug log `log` as `codur trace RUN_ID [--full]` shows it;
    UsageError (as the command) when the log or the run is not there."""
    captured = CapturedIO()
    trace(run_id, None, full, False, lambda: log, captured)
    return captured.text()
