"""Names an edit leaves undefined: an edit of a Python file may not make it use a name
that nothing defines (pyflakes' undefined names: defined nowhere in the file and not a
builtin, a local variable read before it is assigned, a name in `__all__` that does not
exist) where Python evaluates it (a string annotation, a local variable's annotation and
any under `from __future__ import annotations` are never evaluated). Such code fails only
when it runs, which the checks may never do: a reply that pastes a copy of a test beside
its fix, calling helpers the module does not have, would otherwise be written and
verified. Only names the file as it was did not already leave undefined count (a name
the program installs at run time, like gettext's `_`, is used as before).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from codur.edits.equal_all import equal_to_all
from codur.edits.parse import is_python

RUN_TIME_ERRORS = ("UndefinedName", "UndefinedLocal", "UndefinedExport")
"""pyflakes' messages for code that raises when it runs (NameError, UnboundLocalError,
AttributeError on `from module import *`)."""


def _undefined(path: str, text: str) -> list[tuple[str, int, str]] | None:
    """(name, line, pyflakes' message) for each undefined use in `text` that Python
    evaluates; None when it does not parse."""
    from pyflakes import checker, messages

    try:
        tree = ast.parse(text, filename=path)
        found = checker.Checker(tree, filename=path).messages
    except (SyntaxError, ValueError, RecursionError):  # too deep for pyflakes: no verdict
        return None
    kinds = tuple(getattr(messages, kind) for kind in RUN_TIME_ERRORS)
    skipped = _unevaluated(tree)
    return [
        (m.message_args[0], m.lineno, m.message % m.message_args)
        for m in found
        if isinstance(m, kinds) and not any(_inside(m, node) for node in skipped)
    ]


def _unevaluated(tree: ast.Module) -> list[ast.expr]:
    """The code Python never evaluates in which pyflakes still reads names: strings (a
    string annotation, `cast("Widget", x)`), a local variable's annotation, and every
    annotation under `from __future__ import annotations`."""
    future = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in tree.body
    )
    found: list[ast.expr] = []
    formatted = {  # an f-string's text parts carry the whole f-string's place (3.11)
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in ast.walk(node)
    }
    functions = ast.FunctionDef | ast.AsyncFunctionDef
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [] if id(node) in formatted else [node]
        elif future and isinstance(node, ast.arg | ast.AnnAssign) and node.annotation:
            found.append(node.annotation)
        elif future and isinstance(node, functions) and node.returns:
            found.append(node.returns)
        elif not future and isinstance(node, functions):  # its locals' annotations
            found += [n.annotation for n in ast.walk(node) if isinstance(n, ast.AnnAssign)]
    return found


def _inside(message: Any, node: ast.expr) -> bool:
    """Whether pyflakes' `message` is about a place within `node`."""
    at = (message.lineno, message.col)
    end = (node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
    return (node.lineno, node.col_offset) <= at < end


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
    lines = [f"{path}:{line}: {message}" for name, line, message in found if name not in known]
    return list(dict.fromkeys(lines))


def refusal(
    path: str, old: str | None, new: str, original: Callable[[], str | None] | None = None
) -> str | None:
    """Why writing `new` over `old` at `path` is refused for the names it leaves
    undefined (a line for the model), or None. `original`: the file as the run found it
    (None: absent), whose undefined names are allowed too (putting a file back)."""
    undefined = left_undefined(path, old, new)
    if undefined and original is not None:
        before = set(left_undefined(path, original(), new))
        undefined = [line for line in undefined if line in before]
    if not undefined:
        return None
    return f"{'; '.join(undefined)} (define or import each, or leave out what uses it)"


def why_refused(
    path: str, old: str | None, new: str, original: Callable[[], str | None] | None = None
) -> str | None:
    """Why writing `new` over `old` at `path` is refused (a line for the model), or None:
    a name left undefined, or an object made equal to everything (codur.edits.equal_all)."""
    return refusal(path, old, new, original) or equal_to_all(path, old, new, original)
