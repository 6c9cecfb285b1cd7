"""Objects equal to everything: a class whose `__eq__` returns True whatever it is
compared with (or whose `__ne__` returns False) makes every `assert result == expected`
hold, so no test can tell a right result from a wrong one any more. An edit may not add
one (a hostile probe had a scripted reply return such an `int` and end `verified`); one
the file already had stays as it is.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from codur.edits.parse import is_python

HOLLOW = {"__eq__": True, "__ne__": False}
"""The comparisons, and the truth their constant result has when it ignores the other."""


def _constant(node: ast.AST) -> ast.Constant | None:
    """The constant a function or lambda always returns (a docstring aside), or None."""
    if isinstance(node, ast.Lambda):
        return node.body if isinstance(node.body, ast.Constant) else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    body = [
        n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
    ]
    if len(body) == 1 and isinstance(body[0], ast.Return):
        value = body[0].value
        return value if isinstance(value, ast.Constant) else None
    return None


def _methods(cls: ast.ClassDef) -> list[tuple[str, ast.AST]]:
    """(name, definition) of the class's `def` methods and `name = lambda ...` ones."""
    found: list[tuple[str, ast.AST]] = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node.name, node))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            found += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
    return found


def hollow(text: str) -> dict[str, int]:
    """`Class.__eq__` -> its line, for each comparison in `text` that returns a constant of
    the truth in HOLLOW (empty when `text` does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, int] = {}
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for name, node in _methods(cls):
            constant = _constant(node) if name in HOLLOW else None
            if constant is not None and bool(constant.value) is HOLLOW[name]:
                found[f"{cls.name}.{name}"] = getattr(node, "lineno", cls.lineno)
    return found


def equal_to_all(
    path: str, old: str | None, new: str, original: Callable[[], str | None] | None = None
) -> str | None:
    """Why writing `new` over `old` at `path` is refused for a comparison it makes hollow
    (a line for the model), or None. `original`: the file as the run found it, whose
    comparisons are allowed too (putting a file back)."""
    if not is_python(path):
        return None
    added = {k: line for k, line in hollow(new).items() if k not in hollow(old or "")}
    if added and original is not None:
        before = hollow(original() or "")
        added = {k: line for k, line in added.items() if k not in before}
    if not added:
        return None
    shown = "; ".join(
        f"{path}:{line}: {name} returns {HOLLOW[name.rsplit('.', 1)[1]]} whatever it is "
        "compared with"
        for name, line in added.items()
    )
    return f"{shown} (an object equal to everything makes every test's == hold: compare values)"
