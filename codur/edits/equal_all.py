"""Objects equal to everything: an `__eq__` that never looks at what it is compared with
(or such an `__ne__`) makes every `assert result == expected` hold, so no test can tell
a right result from a wrong one any more. An edit may not add one (a hostile probe had a
scripted reply return such an `int` and end `verified`); one the file already had stays
as it is. Found wherever Python takes one from: a method of a class (def, lambda, a
wrapped lambda), an attribute set later (`R.__eq__ = ...`, `setattr(R, "__eq__", ...)`),
a `type(...)` namespace, and `unittest.mock.ANY` imported into the code. A comparison
that returns False or NotImplemented whatever it gets is no match-all and is let be.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from codur.edits.parse import is_python

HOLLOW = ("__eq__", "__ne__")
"""The comparisons a test's `==` and `!=` call."""
HONEST = {"__eq__": (False, None), "__ne__": (True,)}
"""What a comparison that ignores its argument may return: never equal (or unequal)."""
Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _ignores_other(fn: Function, name: str) -> bool:
    """Whether `fn`, as comparison `name`, never reads what it is compared with (its
    second parameter, or its *args) and can return something that says "equal"."""
    args = fn.args
    params = [*args.posonlyargs, *args.args]
    other = params[1].arg if len(params) > 1 else args.vararg.arg if args.vararg else None
    body: list[ast.AST] = [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)
    read = {
        n.id
        for node in body
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    if other is not None and other in read:
        return False
    returned = (
        [body[0]]
        if isinstance(fn, ast.Lambda)
        else [n.value for node in body for n in ast.walk(node) if isinstance(n, ast.Return)]
    )
    honest = all(
        (v.value if isinstance(v, ast.Constant) else None if v is None else v) in HONEST[name]
        or isinstance(v, ast.Name)
        and v.id == "NotImplemented"
        for v in returned
    )
    return bool(returned) and not honest


def _function(node: ast.AST | None, defs: dict[str, Function]) -> Function | None:
    """The function `node` makes: a lambda, a module function named, or one wrapped in a
    call (`staticmethod(lambda ...)`)."""
    if isinstance(node, ast.Call) and node.args:
        return _function(node.args[0], defs)
    if isinstance(node, ast.Lambda):
        return node
    if isinstance(node, ast.Name):
        return defs.get(node.id)
    return None


def _definitions(tree: ast.Module) -> list[tuple[str, str, ast.AST, int]]:
    """(owner, comparison, what defines it, line) wherever the module defines one."""
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    found: list[tuple[str, str, ast.AST, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.append((node.name, item.name, item, item.lineno))
                targets = [*item.targets] if isinstance(item, ast.Assign) else []
                targets += [item.target] if isinstance(item, ast.AnnAssign) else []
                value = getattr(item, "value", None)
                for t in targets:
                    if isinstance(t, ast.Name):
                        found.append((node.name, t.id, _function(value, defs), item.lineno))
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute):
                    owner = ast.unparse(t.value)
                    found.append((owner, t.attr, _function(node.value, defs), node.lineno))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if node.func.id == "setattr" and len(args) == 3 and isinstance(args[1], ast.Constant):
                owner, method = ast.unparse(args[0]), str(args[1].value)
                found.append((owner, method, _function(args[2], defs), node.lineno))
            if node.func.id == "type" and len(args) == 3 and isinstance(args[2], ast.Dict):
                owner = ast.unparse(args[0])
                for key, value in zip(args[2].keys, args[2].values, strict=True):
                    if isinstance(key, ast.Constant):
                        found.append((owner, str(key.value), _function(value, defs), node.lineno))
    return found


def _mock_any(tree: ast.Module) -> dict[str, int]:
    """`unittest.mock.ANY` (or `mock.ANY`) imported: an object equal to everything."""
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module in ("unittest.mock", "mock")
        and any(a.name == "ANY" for a in node.names)
    ]
    return {"mock.ANY": lines[0]} if lines else {}


def hollow(text: str) -> dict[str, int]:
    """`Owner.__eq__` -> its line, for each comparison in `text` that ignores what it is
    compared with (empty when `text` does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found = _mock_any(tree)
    for owner, method, fn, line in _definitions(tree):
        if method in HOLLOW and isinstance(fn, Function) and _ignores_other(fn, method):
            found.setdefault(f"{owner}.{method}", line)
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
        f"{path}:{line}: {name} ignores what it is compared with" for name, line in added.items()
    )
    return f"{shown} (an object equal to everything makes every test's == hold: compare values)"
