"""A fragment's new imports: which of them the file lacks, and where they go in it."""

from __future__ import annotations

import ast

from codur.edits.spans import Import, Layout, span
from codur.edits.splice import Source, is_comment


def _bindings(node: Import) -> set[tuple[str | None, str, str | None, int]]:
    if isinstance(node, ast.Import):
        return {(None, a.name, a.asname, 0) for a in node.names}
    return {(node.module, a.name, a.asname, node.level) for a in node.names}


def _is_future(node: Import) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _header_end(source: Source) -> int:
    """Lines at the top that stay first: a shebang and coding line, and a comment header
    that a blank line separates from what follows."""
    end = 0
    while end < len(source.lines) and end < 2 and source.lines[end].startswith(("#!", "# -*-")):
        end += 1
    comments = end
    while comments < len(source.lines) and is_comment(source.lines[comments]):
        comments += 1
    if comments > end and comments < len(source.lines) and not source.lines[comments].strip():
        end = comments + 1
    return end


def add_imports(source: Source, old: Layout, new: Layout, block: list[str]) -> list[str]:
    """Schedule the block's top-level imports that bind a name the file does not import
    yet (after the module docstring, `from __future__` imports and the file's leading
    import block); return their text."""
    have = set().union(*(_bindings(n) for n in old.imports))
    missing = [n for n in new.imports if not _bindings(n) <= have]
    if not missing:
        return []
    first_code = min(
        (n.lineno for n in [*old.definitions, *old.statements]), default=len(source.lines) + 1
    )
    leading = [n for n in old.imports if n.lineno < first_code]
    top = old.docstring.end_lineno if old.docstring and old.docstring.end_lineno else 0
    top = top or _header_end(source)
    added: list[str] = []
    for future in (True, False):
        group = [n for n in missing if _is_future(n) == future]
        if not group:
            continue
        lines = [line for n in group for line in block[span(n).start - 1 : span(n).end]]
        added += ["".join(block[span(n).start - 1 : span(n).end]).strip() for n in group]
        after = [n for n in leading if _is_future(n)] if future else leading
        if after:
            source.insert(span(after[-1]).end, lines)
        elif old.docstring:
            source.insert(top, ["\n", *lines])
        else:
            source.insert(top, [*lines, "\n"])
    return added
