"""Run a program (a script, or a module such as pytest) and record which lines of the files
under a folder it executed, and for each how many lines the program had printed when it
first ran (code that first ran after the first wrong output line cannot have caused it).
Standalone: `python tracer.py OUT ROOT path|module TARGET [ARGS...]`; it imports nothing
from codur, so it starts fast in a scratch copy.
"""

from __future__ import annotations

import json
import sys

from traced_run import inside, run_traced  # this folder's: see traced_run.py


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
    out, root, *argv = sys.argv[1:]
    seen: dict[str, dict[int, int]] = {}
    stdout = sys.stdout = _Counting(sys.stdout)
    where = inside(root)

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

    run_traced(trace, dump, argv)


if __name__ == "__main__":
    main()
