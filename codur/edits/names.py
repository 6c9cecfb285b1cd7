"""Names an edit leaves undefined: an edit of a Python file may not make it use a name
that nothing defines (pyflakes' undefined names: defined nowhere in the file and not a
builtin, a local variable read before it is assigned, a name in `__all__` that does not
exist). Such code fails only when it runs, which the checks may never do: a reply that
pastes a copy of a test beside its fix, calling helpers the module does not have, would
otherwise be written and verified. Only names the file as it was did not already leave
undefined count (a name the program installs at run time, like gettext's `_`, is used
as before).
"""

from __future__ import annotations

import ast
import re

from codur.edits.parse import is_python

RUN_TIME_ERRORS = ("UndefinedName", "UndefinedLocal", "UndefinedExport")
"""pyflakes' messages for code that raises when it runs (NameError, UnboundLocalError,
AttributeError on `from module import *`)."""


def _undefined(path: str, text: str) -> list[tuple[str, int, str]] | None:
    """(name, line, pyflakes' message) for each undefined use in `text`; None when it
    does not parse."""
    from pyflakes import checker, messages

    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError):
        return None
    kinds = tuple(getattr(messages, kind) for kind in RUN_TIME_ERRORS)
    return [
        (m.message_args[0], m.lineno, m.message % m.message_args)
        for m in checker.Checker(tree, filename=path).messages
        if isinstance(m, kinds)
    ]


def left_undefined(path: str, old: str | None, new: str) -> list[str]:
    """`path:line: message` for each name `new` uses undefined that `old` (None: a new
    file) did not; empty when there is none, or `path` is not Python or `new` does not
    parse (the syntax check says so)."""
    if not is_python(path):
        return []
    found = _undefined(path, new) or []
    before = _undefined(path, old) if old is not None else []
    if before is None:  # the old text does not parse: any use of the name in it counts
        known = set(re.findall(r"[A-Za-z_]\w*", old or ""))
    else:
        known = {name for name, _, _ in before}
    return [f"{path}:{line}: {message}" for name, line, message in found if name not in known]
