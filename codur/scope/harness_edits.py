"""Comparing and keeping a harness across an edit: did an edit change it (as ASTs, so
formatting does not count), and the edit without its harness changes."""

from __future__ import annotations

import ast

from codur.scope.harness import Harness


def _harness_nodes(tree: ast.Module, harness: Harness) -> list[ast.stmt]:
    """The top-level statements of `tree` that are harness: each harness definition and
    each module-level statement that is not code under test (nor an import or docstring)."""
    keep = set(harness.definitions)
    nodes = []
    for node in tree.body:
        name = getattr(node, "name", None)
        if name in keep:
            nodes.append(node)
        elif name is None and not isinstance(node, ast.Import | ast.ImportFrom):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            assigned = _assigned(node)
            if not (assigned and assigned <= harness.program_names):
                nodes.append(node)
    return nodes


def _segments(source: str, harness: Harness) -> list[str]:
    """The harness as comparable pieces, as AST dumps (formatting does not count)."""
    return [ast.dump(node) for node in _harness_nodes(ast.parse(source), harness)]


def harness_lines(source: str, harness: Harness) -> frozenset[int] | None:
    """The lines of `harness` in `source`, a later version of the file it was found in
    (edits move it); None when `source` does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines: set[int] = set()
    for node in _harness_nodes(tree, harness):
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        lines.update(range(first, (node.end_lineno or node.lineno) + 1))
    return frozenset(lines)


def _assigned(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Assign):
        return {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def harness_changed(old: str, new: str, harness: Harness) -> bool:
    try:
        return _segments(old, harness) != _segments(new, harness)
    except SyntaxError:
        return False  # a syntax error is rejected on its own terms


def without_harness_changes(path: str, old: str, new: str, harness: Harness) -> str | None:
    """`old` with `new`'s versions of the definitions that are not harness (and its new
    imports) merged in by name; None when that cannot be done."""
    from codur.edits import EditError, definitions, merge_python

    try:
        tree = ast.parse(new)
        spans = definitions(new)
    except SyntaxError:
        return None
    lines = new.splitlines(keepends=True)
    pieces = [
        "".join(lines[node.lineno - 1 : node.end_lineno])
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    for name, span in spans.items():
        if "." not in name and name not in harness.definitions:
            pieces.append("".join(lines[span.start - 1 : span.end]) + "\n")
    if not any("def " in p or "class " in p for p in pieces):
        return None
    try:
        return merge_python(path, old, "\n".join(pieces)).content
    except EditError:
        return None
