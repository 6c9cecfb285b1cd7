"""Functions a test selects by a string key, a dispatch no call graph follows:
`tabulate(rows, tablefmt="latex")` reaches `_latex_row` through the module's table
`{"latex": TableFormat(datarow=_latex_row, ...), ...}`."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Iterator

_KEY = re.compile(r"[A-Za-z_][\w-]{2,40}")
"""A string that can be a key of such a table (`latex`, `fancy_grid`, `utf-8`)."""


def test_strings(sources: list[str]) -> set[str]:
    """The word-like string constants in the failing tests' source."""
    out: set[str] = set()
    for source in sources:
        try:  # a method's source is indented
            tree = ast.parse(textwrap.dedent(source))
        except SyntaxError:
            continue
        out |= {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _KEY.fullmatch(node.value)
        }
    return out


def keyed(text: str, keys: set[str]) -> Iterator[tuple[str, str]]:
    """(key, name) for each name that the value of a module-level dict's entry refers
    to, where the entry's key is one of `keys`."""
    if not any(f'"{k}"' in text or f"'{k}'" in text for k in keys):
        return
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in tree.body:
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        if not isinstance(value, ast.Dict):
            continue
        for key, entry in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and key.value in keys:
                for name in dict.fromkeys(_names(entry)):
                    yield key.value, name


def _names(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            yield sub.id


def selected_by_key(
    paths: list[str], read: Callable[[str], str | None], sources: list[str]
) -> list[tuple[str, str, str]]:
    """(path, key, name) for the names that the tables of the files at `paths` hold
    under a key the failing tests' `sources` use."""
    keys = test_strings(sources)
    out = []
    for path in paths if keys else []:
        text = read(path)
        out += [(path, key, name) for key, name in keyed(text, keys)] if text else []
    return out
