"""Do the tests call the functions a run changed? A conservative, static answer.

A run changes a function when it adds it or changes its code (its docstring aside). The
tests call a function when its name is a word of a test file or conftest.py, of the
code any of the folder's modules runs on import (outside every function: a dispatch
table, a class body, a decorator's argument), or of a function the tests call, and so on.
Special methods (`__eq__`, `__iter__`) and decorated functions (a decorator may register
them) count as called. Like `verify/reach.py`, the answer errs towards "called": a
changed function is set aside only when nothing the tests can run so much as names it
(a new `sub()` no test uses), and then passing tests say nothing about it. A function
called only by a name built at run time (`getattr(self, "visit_" + kind)`) is not seen.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from codur import source_encoding
from codur.verify.reach import MAX_BYTES
from codur.verify.target import is_test, python_files

_WORD = re.compile(r"\w+")
_Def = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class _Function:
    name: str
    words: frozenset[str]
    always: bool
    """Called whether or not it is named: a special method, or a decorated function."""


def _defs(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, _Def]]:
    """(qualified name, node) of every function in `tree`, nested ones too, in order
    (a name may come more than once: `@overload`, a definition under `if`)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, _Def):
            yield f"{prefix}{node.name}", node
            yield from _defs(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _defs(node, f"{prefix}{node.name}.")
        else:
            yield from _defs(node, prefix)


def _code(node: _Def) -> str:
    """A function as compared across the run: its AST without its docstring."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:] if isinstance(body[0].value.value, str) else body
    return ast.dump(node.args) + "".join(ast.dump(n) for n in [*node.decorator_list, *body])


def _parse(text: str | None) -> ast.Module | None:
    try:
        return ast.parse(text) if text is not None else None
    except (SyntaxError, ValueError):
        return None


def changed_functions(before: str | None, after: str) -> list[str]:
    """Qualified names of the functions in `after` that `before` lacks or has otherwise
    (`before` None: the file is new). Empty when `after` does not parse."""
    new = _parse(after)
    if new is None:
        return []
    old = _numbered(_defs(_parse(before) or ast.Module(body=[], type_ignores=[])))
    now = _numbered(_defs(new))
    changed = (name for (name, n), code in now.items() if code != old.get((name, n)))
    return list(dict.fromkeys(changed))


def _numbered(defs: Iterator[tuple[str, _Def]]) -> dict[tuple[str, int], str]:
    """Each function's code, keyed by its name and how many came before it by that name."""
    seen: Counter[str] = Counter()
    numbered = {}
    for name, node in defs:
        numbered[(name, seen[name])] = _code(node)
        seen[name] += 1
    return numbered


def _units(text: str) -> tuple[set[str], list[_Function]]:
    """The words of a module's import-time code, and its functions (a file that does not
    parse is all import-time code)."""
    tree = _parse(text)
    if tree is None:
        return set(_WORD.findall(text)), []
    lines = text.splitlines()
    outside = [True] * len(lines)
    functions = []
    for _, node in _defs(tree):
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        span = lines[start : node.end_lineno or node.lineno]
        for i in range(start, start + len(span)):
            outside[i] = False
        special = node.name.startswith("__") and node.name.endswith("__")
        words = frozenset(_WORD.findall("\n".join(span)))
        functions.append(_Function(node.name, words, special or bool(node.decorator_list)))
    top = "\n".join(line for line, out in zip(lines, outside, strict=True) if out)
    return set(_WORD.findall(top)), functions


def _called_names(root: Path) -> set[str]:
    """Every word the tests can reach: the names of the functions they can call."""
    words: set[str] = set()
    functions: list[_Function] = []
    for path in python_files(root):
        try:
            if (root / path).stat().st_size > MAX_BYTES:
                continue
            text = (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if is_test(path) or Path(path).name == "conftest.py":
            words |= set(_WORD.findall(text))
            continue
        top, found = _units(text)
        words |= top
        functions += found
    pending = list(functions)
    while True:
        now = [f for f in pending if f.always or f.name in words]
        if not now:
            return words
        pending = [f for f in pending if not (f.always or f.name in words)]
        for function in now:
            words |= function.words


def uncalled(root: Path, before: Mapping[str, str | None]) -> list[str]:
    """`path: name` for each function the run changed (`before`: the changed files'
    text before the run, None for a new file) that no test can call."""
    changed: dict[str, list[str]] = {}
    for path, old in before.items():
        if not path.endswith(".py") or is_test(path):
            continue
        try:
            now = source_encoding.decode(path, (root / path).read_bytes(), "replace")
        except OSError:
            continue
        if found := changed_functions(old, now):
            changed[path] = found
    if not changed:
        return []
    called = _called_names(root)
    missed = []
    for path, names in changed.items():
        for name in names:
            bare = name.rsplit(".", 1)[-1]
            if not (bare in called or (bare.startswith("__") and bare.endswith("__"))):
                missed.append(f"{path}: {name}")
    return missed
