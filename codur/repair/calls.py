"""Run a program (a script, or a module such as pytest) and record the arguments of the
calls it makes into the top-level functions of the files under a folder: those made from
another file (a test calling the code) or from a file's module-level code (a script's
driver). Only arguments that are literals (`repr` reads back as an equal value) are kept,
each distinct tuple once, at most LIMIT per function.
Standalone: `python calls.py OUT ROOT path|module TARGET [ARGS...]`; it imports nothing
from codur, so it starts fast in a scratch copy. OUT gets {path: {function: [repr]}}.
"""

from __future__ import annotations

import ast
import json
import sys

from traced_run import inside, run_traced  # this folder's: see traced_run.py

LIMIT = 50
"""Distinct argument tuples kept per function."""


def _literal(values: tuple) -> str | None:
    """`repr(values)` if it reads back as an equal value (None: not a literal)."""
    try:
        text = repr(values)
        return text if len(text) <= 2000 and ast.literal_eval(text) == values else None
    except Exception:  # noqa: BLE001 - a user type's __repr__ or __eq__ may raise anything
        return None  # then it is no literal


def main() -> None:
    out, root, *argv = sys.argv[1:]
    seen: dict[str, dict[str, dict[str, None]]] = {}
    where = inside(root)

    def trace(frame, event, arg):  # noqa: ANN001, ANN202 - sys.settrace's signature
        record(frame)
        return None  # no line events: only calls are wanted

    def record(frame) -> None:  # noqa: ANN001 - a frame
        code = frame.f_code
        rel = where(code.co_filename)
        if rel is None or code.co_qualname != code.co_name or code.co_name.startswith("<"):
            return  # not the folder's, or a method, nested function, lambda, comprehension
        caller = frame.f_back
        same_file = caller is not None and caller.f_code.co_filename == code.co_filename
        if same_file and caller.f_code.co_name != "<module>":
            return  # a call inside the file: the code calling itself
        calls = seen.setdefault(rel, {}).setdefault(code.co_name, {})
        if len(calls) >= LIMIT or code.co_flags & 0x0C or code.co_kwonlyargcount:
            return  # enough, or not callable with positional arguments alone (*a, **k)
        names = code.co_varnames[: code.co_argcount]
        text = _literal(tuple(frame.f_locals[name] for name in names))
        if text is not None:
            calls.setdefault(text, None)

    def dump() -> None:
        sys.settrace(None)
        found = {p: {f: list(c) for f, c in fs.items() if c} for p, fs in seen.items()}
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(found, fh)

    run_traced(trace, dump, argv)


if __name__ == "__main__":
    main()
