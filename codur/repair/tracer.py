"""Run a program (a script, or a module such as pytest) and record which lines of the files
under a folder it executed, and for each how many lines the program had printed when it
first ran (code that first ran after the first wrong output line cannot have caused it).
Standalone: `python tracer.py OUT ROOT path|module TARGET [ARGS...]`; it imports nothing
from codur, so it starts fast in a scratch copy.
"""

from __future__ import annotations

import atexit
import json
import os
import runpy
import sys
import threading


class _Counting:
    """stdout, counting the lines written through it."""

    def __init__(self, stream) -> None:  # noqa: ANN001 - any text stream
        self.stream = stream
        self.lines = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        return self.stream.write(text)

    def __getattr__(self, name: str):  # noqa: ANN204 - delegate everything else
        return getattr(self.stream, name)


def main() -> None:
    out, root, mode, target, *args = sys.argv[1:]
    root = os.path.realpath(root) + os.sep
    seen: dict[str, dict[int, int]] = {}
    stdout = sys.stdout = _Counting(sys.stdout)
    inside: dict[str, str | None] = {}

    def where(filename: str) -> str | None:
        if filename not in inside:
            if filename.startswith("<"):  # <frozen ...>, <string>: not a file
                inside[filename] = None
                return None
            real = os.path.realpath(filename)
            inside[filename] = real[len(root) :] if real.startswith(root) else None
        return inside[filename]

    def trace(frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace's signature
        rel = where(frame.f_code.co_filename)
        if rel is None:
            return None
        seen.setdefault(rel, {}).setdefault(frame.f_lineno, stdout.lines)
        return trace

    def dump() -> None:
        sys.settrace(None)
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(seen, fh)

    atexit.register(dump)
    sys.argv = [target, *args]
    if mode == "path":
        sys.path[0] = os.path.dirname(os.path.abspath(target))
    else:
        sys.path[0] = os.getcwd()
    threading.settrace(trace)
    sys.settrace(trace)
    if mode == "path":
        runpy.run_path(os.path.abspath(target), run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
