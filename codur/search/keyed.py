"""Functions a test selects by a string key, a dispatch no call graph follows:
`tabulate(rows, tablefmt="latex")` reaches `_latex_row` through the module's table
`{"latex": TableFormat(datarow=_latex_row, ...), ...}`."""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Container, Iterator
from functools import lru_cache

_KEY = re.compile(r"[A-Za-z_][\w-]{2,40}")
"""A string that can be a key of such a table (`latex`, `fancy_grid`, `utf-8`)."""
MAX_KEYS = 64
"""The failing tests' strings looked up (the first ones; a long parametrized list of
strings is data, not the choice of a table entry)."""
MAX_SELECTED = 3
"""A key that selects more functions than this (`"name"`, a key of many tables) selects
none."""


def test_strings(sources: list[str]) -> list[str]:
    """The word-like string constants in the failing tests' source, in order."""
    out: dict[str, None] = {}
    for source in sources:
        try:  # a method's source is indented
            tree = ast.parse(textwrap.dedent(source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and _KEY.fullmatch(text):
                out[text] = None
    return list(out)[:MAX_KEYS]


@lru_cache(maxsize=256)
def tables(text: str) -> dict[str, tuple[str, ...]]:
    """Key -> the names its entry's value refers to, over the module-level dict literals
    of a module's source (read once per text)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, dict[str, None]] = {}
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if not isinstance(value, ast.Dict):
            continue
        for key, entry in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                out.setdefault(key.value, {}).update(dict.fromkeys(_names(entry)))
    return {key: tuple(names) for key, names in out.items()}


def _names(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            yield sub.id


def selected_by_key(
    paths: list[str],
    read: Callable[[str], str | None],
    sources: list[str],
    functions: Container[tuple[str, str]],
) -> list[tuple[str, str, str]]:
    """(path, key, name) for the `functions` (by path and name) that the tables
    of the files at `paths` hold under a key the failing tests' `sources` use."""
    keys = test_strings(sources)
    if not keys:
        return []
    quoted = re.compile("|".join(f"[\"']{re.escape(k)}[\"']" for k in keys))
    found: dict[str, list[tuple[str, str, str]]] = {}
    for path in paths:
        text = read(path)
        if not text or not quoted.search(text):
            continue
        held = tables(text)
        for key in keys:
            for name in held.get(key, ()):
                if (path, name) in functions:
                    found.setdefault(key, []).append((path, key, name))
    return [item for items in found.values() if len(items) <= MAX_SELECTED for item in items]
