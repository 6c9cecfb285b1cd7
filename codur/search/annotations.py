"""The class a function's return annotation names: `-> X`, `-> X | None`, `Optional[X]`,
`-> "X"`, `-> Self`; none for anything else (`list[X]`, a TypeVar `T`, `X | Y`)."""

from __future__ import annotations

import ast
from collections.abc import Callable


def returned_class(
    node: ast.expr | None, name_of: Callable[[ast.expr], str], own_class: str
) -> str:
    """The class `node` names as `name_of` resolves a name or attribute (empty: unknown),
    `own_class` for `Self` (empty outside a class); empty when it names no one class."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | None
        sides = [n for n in (node.left, node.right) if not _is_none(n)]
        return returned_class(sides[0], name_of, own_class) if len(sides) == 1 else ""
    if isinstance(node, ast.Subscript) and _last(node.value) == "Optional":
        return returned_class(node.slice, name_of, own_class)
    if isinstance(node, ast.Name) and node.id == "Self":
        return own_class
    return name_of(node) if isinstance(node, ast.Name | ast.Attribute) else ""


def _last(node: ast.expr) -> str:
    """`Optional` for `Optional`, `typing.Optional`, `t.Optional`."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
