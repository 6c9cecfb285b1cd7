"""Stopping Codur cleanly: Ctrl-C (SIGINT), SIGTERM and SIGHUP are handled alike.

The first signal kills every running program (and its descendants) at once, refuses new
ones, and raises `Interrupted` in the main thread, so the run unwinds: scratch copies
are removed, MCP servers stopped, the end record written; the exit code is 128 + the
signal's number. While that cleanup runs, a second Ctrl-C exits at once; other signals
only kill programs again. A closed standard output (`codur --json | head -1`) stops the
run the same way, quietly (`output_closed`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from codur.errors import Interrupted
from codur.sandbox.reaper import REAPER

SIGNALS = tuple(
    s
    for s in (signal.SIGINT, getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
    if s is not None
)


def _again(signum: int, frame: FrameType | None) -> None:
    REAPER.stop_all(signum)
    if signum == signal.SIGINT:  # Ctrl-C twice: the user will not wait for the cleanup
        os._exit(128 + signum)


def _first(signum: int, frame: FrameType | None) -> None:
    REAPER.stop_all(signum)
    for other in SIGNALS:
        signal.signal(other, _again)
    raise Interrupted(signum)


def rearm() -> None:
    """After a signal that was answered without stopping (Ctrl-C at `codur chat`'s
    prompt clears the line): the next one is a first one again, and programs may run."""
    main = threading.current_thread() is threading.main_thread()
    if main and signal.getsignal(signal.SIGINT) is _again:
        for s in SIGNALS:
            signal.signal(s, _first)
    REAPER.resume()


def stopped() -> Interrupted | None:
    """How Codur was stopped, if it was (whatever the libraries made of the exception on
    its way up: typer turns a KeyboardInterrupt into exit code 130)."""
    signum = REAPER.stopped_by
    return None if signum is None else Interrupted(signum)


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """Handle SIGINT, SIGTERM and SIGHUP as described above while the block runs (in the
    main thread only: elsewhere signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    hook = sys.unraisablehook
    sys.unraisablehook = _quiet_if_interrupted(hook)
    for s in SIGNALS:
        signal.signal(s, _first)
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        sys.unraisablehook = hook
        REAPER.resume()


def _quiet_if_interrupted(
    hook: Callable[[sys.UnraisableHookArgs], Any],
) -> Callable[[sys.UnraisableHookArgs], None]:
    """Where Python cannot raise (a hook it runs around fork, while a program starts) the
    signal's Interrupted is dropped with a traceback on the terminal: the signal is
    known all the same (`stopped`; its programs are killed and new ones refused), so
    nothing is printed for it. Anything else goes to `hook`, the one before."""

    def quiet(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, Interrupted):
            hook(unraisable)

    return quiet


def exit_at_once_on_signals() -> None:
    """From now on a signal ends the process at once, with its exit code (128 + its
    number): the run is over and said, and only the process's exit is left, which a
    KeyboardInterrupt traceback would otherwise interrupt (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for s in SIGNALS:
        signal.signal(s, _exit_now)


def _exit_now(signum: int, frame: FrameType | None) -> None:
    REAPER.stop_all(signum)  # no program of the run outlives it
    os._exit(128 + signum)


def output_closed() -> Interrupted:
    """Standard output is gone: point it at /dev/null (so nothing else fails writing to
    it, Python's exit flush included), stop every program, and return the Interrupted to
    raise."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    REAPER.stop_all(signal.SIGPIPE)
    return Interrupted(signal.SIGPIPE)
