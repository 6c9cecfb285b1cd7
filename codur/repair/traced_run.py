"""What the standalone tracers (tracer.py, calls.py) share: run a program, a script or a
module such as pytest, under a trace function, and write what it saw when it exits.
Imported by those scripts from their own folder; it imports nothing from codur."""

from __future__ import annotations

import atexit
import os
import runpy
import sys
import threading
from collections.abc import Callable


def inside(root: str) -> Callable[[str], str | None]:
    """A memoized `filename -> path relative to root` (None: outside root, or no file)."""
    root = os.path.realpath(root) + os.sep
    known: dict[str, str | None] = {}

    def where(filename: str) -> str | None:
        if filename not in known:
            real = os.path.realpath(filename) if not filename.startswith("<") else ""
            known[filename] = real[len(root) :] if real.startswith(root) else None
        return known[filename]

    return where


def run_traced(trace: Callable, dump: Callable[[], None], argv: list[str]) -> None:
    """Run `argv` (`path|module TARGET [ARGS...]`) as `__main__` under `trace`; `dump`
    runs at exit, however the program ends."""
    mode, target, *args = argv
    atexit.register(dump)
    sys.argv = [target, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(target)) if mode == "path" else os.getcwd()
    threading.settrace(trace)
    sys.settrace(trace)
    if mode == "path":
        runpy.run_path(os.path.abspath(target), run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
