"""Run a program with a timeout, an output cap and a memory cap; never hang, never flood.

Every program goes through `run_process`, inside a `Sandbox` (codur/sandbox): scrubbed
environment, own session and process group, confined writes where available, and every
descendant killed when it ends, on timeout, on an output flood or when Codur stops. The
timeout bounds the whole run, whatever the descendants do: the output is read against the
clock, never to an end of file a descendant can hold off (`codur.sandbox.pipes`). Its
output comes back twice: `stdout`/`stderr` with every known secret masked (`codur.redaction`)
for whatever is shown or sent, and `raw_stdout`/`raw_stderr` as printed, for the checks.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codur.errors import Cancelled, Interrupted
from codur.redaction import Redactor
from codur.sandbox import Sandbox
from codur.sandbox.pipes import Pipes, StopOn
from codur.sandbox.reaper import REAPER

DRAIN_GRACE_S = 1.0
"""After a program ends or is stopped and its descendants are killed, how long its output
is still read until the pipes close: a writer that could not be killed (another user's)
holds the result up no longer. A program's run takes at most its timeout plus this (and
the kills)."""


@dataclass(frozen=True)
class ProcessResult:
    command: list[str]
    exit_code: int | None
    """None when the process was killed (timeout or output cap)."""
    stdout: str
    stderr: str
    """The output as shown: every known secret masked (for prompts, logs, the terminal)."""
    raw_stdout: str = field(repr=False, kw_only=True)
    raw_stderr: str = field(repr=False, kw_only=True)
    """The output as printed, for checks that compare it; never shown or sent."""
    duration_s: float
    timed_out: bool = False
    truncated: bool = False
    """Output went past the cap: the process was stopped and the rest discarded."""
    stopped_at_line: int | None = None
    """The 1-based stdout line `stop_on` stopped the process at (its output ends there)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.truncated


def run_process(
    command: list[str],
    cwd: Path,
    timeout_s: float,
    output_limit: int,
    memory_limit: int | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    sandbox: Sandbox | None = None,
    writable: Sequence[Path] = (),
    tick: Callable[[], None] | None = None,
    stop_on: StopOn | None = None,
) -> ProcessResult:
    """Run `command` in `cwd` inside `sandbox` (default: secrets removed from the
    environment, not confined). `env`: variables set on top of the sandbox's environment;
    `writable`: folders a confined program may write besides `cwd` and its temp folder;
    `tick`: called every few tenths of a second while the program runs (its progress);
    `stop_on`: watches each stdout line as it is printed, and the program (with every
    descendant) is stopped at the first line it returns True for."""
    start = time.perf_counter()
    box = sandbox or Sandbox()
    if box.cancel is not None and box.cancel.is_set():
        raise Cancelled()
    with box.launch(command, cwd, env or {}, writable, memory_limit) as launch:
        proc = REAPER.spawn(
            launch.tag,
            args=launch.argv,
            cwd=cwd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **launch.popen,
        )
        data = stdin.encode() if stdin is not None else None
        try:
            launch.started()
            pipes = Pipes(proc, data, output_limit, stop_on)
        except BaseException:
            REAPER.end(launch.tag, proc)
            raise
        with contextlib.closing(pipes):
            try:
                ending = pipes.serve(timeout_s, box.cancel, tick)
            finally:  # ended, timed out, flooded, or Codur stopping: nothing of it survives
                REAPER.end(launch.tag, proc)
            pipes.drain(DRAIN_GRACE_S)
    if ending == "cancelled":
        raise Cancelled()
    if REAPER.stopped_by is not None:  # killed as Codur stops: no result of its own
        raise Interrupted(REAPER.stopped_by)
    # a line `stop_on` stops at ends the result there even if the program had already
    # ended when it was read: the same output always gives the same result
    killed = ending != "ended" or pipes.flooded or pipes.stopped_at is not None
    shown = Redactor()  # a secret it printed (a .env value) reaches no prompt, log or line
    stdout, stderr = pipes.text("stdout"), pipes.text("stderr")
    return ProcessResult(
        command=command,
        exit_code=None if killed else proc.returncode,
        stdout=shown.text(stdout),
        stderr=shown.text(stderr),
        raw_stdout=stdout,
        raw_stderr=stderr,
        duration_s=round(time.perf_counter() - start, 3),
        timed_out=ending == "timeout",
        truncated=pipes.flooded,
        stopped_at_line=pipes.stopped_at,
    )
