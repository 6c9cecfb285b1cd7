"""Shared AST helpers of the mutation operators: positioned nodes in source order, operator
tables, operand spans, docstrings."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from functools import lru_cache

from codur.repair.source import Mutation, Source

ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
BINOP = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "@", ast.Div: "/",
    ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&",
}  # fmt: skip
ARITH_SWAPS = {
    "+": ("-", "*"), "-": ("+",), "*": ("/", "+"), "/": ("//", "*"),
    "//": ("/", "%"), "%": ("//",), "**": ("*",),
}  # fmt: skip
REGROUPABLE = {"+", "-", "*", "/", "//", "%"}
NON_COMMUTATIVE = {"-", "/", "//", "%", "**"}
COMPARE = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip
COMPARE_SWAPS = {
    "<": ("<=", ">"), "<=": ("<", ">="), ">": (">=", "<"), ">=": (">", "<="),
    "==": ("!=",), "!=": ("==",), "in": ("not in",), "not in": ("in",),
    "is": ("is not",), "is not": ("is",),
}  # fmt: skip
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (*FUNCTIONS, ast.ClassDef, ast.Lambda)
SKIPPED_FIELDS = {"annotation", "returns"}
BUILTINS = frozenset(dir(builtins))
NOT = re.compile(r"not[ \t]*")
DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
FIELD = re.compile(
    r"(?<!\{)\{[A-Za-z_][\w.]*(?:\([^{}()]*\)|\[[^{}\[\]]*\])*(?:![rsa])?(?::[^{}]*)?\}(?!\})"
)


# --- shared helpers -------------------------------------------------------------------


@lru_cache(maxsize=8)
def positioned_nodes(tree: ast.AST) -> tuple[ast.AST, ...]:
    """Positioned nodes in source order, skipping annotations and f-string internals.

    Cached per tree (by identity): every operator walks the same module.
    """
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if hasattr(node, "lineno"):
            found.append(node)
        if isinstance(node, ast.JoinedStr):
            continue
        for field, value in ast.iter_fields(node):
            if field in SKIPPED_FIELDS:
                continue
            children = value if isinstance(value, list) else [value]
            stack.extend(child for child in children if isinstance(child, ast.AST))
    return tuple(sorted(found, key=lambda n: (n.lineno, n.col_offset)))


def is_atom(node: ast.AST) -> bool:
    """Can the node's text take an operator next to it without parentheses?"""
    return isinstance(node, ATOMS)


def int_value(node: ast.AST) -> int | None:
    """The value of an int literal, or of `-literal`."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def is_not(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


def drop_not(src: Source, node: ast.UnaryOp) -> Mutation:
    """`not x` -> `x`, deleting just the keyword (so parentheses around x stay)."""
    start = src.start(node)
    match = NOT.match(src.text, start)
    return src.edit(node, start, match.end() if match else start + 3, "")


def binop_parts(src: Source, node: ast.BinOp) -> tuple[tuple[int, int], ...] | None:
    """Spans of a BinOp's left operand, operator token and right operand (with their parens)."""
    token = src.token_between(node.left, node.right, BINOP[type(node.op)])
    if token is None:
        return None
    left = src.outer_span(node.left, src.start(node), token[0])
    right = src.outer_span(node.right, token[1], src.end(node))
    return left, token, right


def grouped(src: Source, node: ast.AST, span: tuple[int, int]) -> str:
    """The operand's text, parenthesised unless it is an atom or already in parentheses."""
    text = src.text[span[0] : span[1]]
    return text if is_atom(node) or span != src.span(node) else f"({text})"


def docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants of the module, classes and functions."""
    owners = [
        tree,
        *(n for n in positioned_nodes(tree) if isinstance(n, (*FUNCTIONS, ast.ClassDef))),
    ]
    return {id(n.body[0].value) for n in owners if n.body and is_docstring(n.body[0])}


def is_docstring(stmt: ast.stmt) -> bool:
    value = getattr(stmt, "value", None)
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    )


# --- off_by_one -----------------------------------------------------------------------


def shifted(src: Source, expr: ast.expr, delta: int) -> str:
    """The text of `expr + delta` (delta is 1 or -1), simplified where that is easy."""
    value = int_value(expr)
    if value is not None:
        return str(value + delta)
    undo = ast.Sub if delta > 0 else ast.Add
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, undo) and int_value(expr.right) == 1:
        parts = binop_parts(src, expr)
        if parts:
            return src.text[parts[0][0] : parts[0][1]]
    text = src.segment(expr)
    if not is_atom(expr):
        text = f"({text})"
    return f"{text} + 1" if delta > 0 else f"{text} - 1"


def nudge(src: Source, owner: ast.AST, expr: ast.expr) -> Iterator[Mutation]:
    for delta in (1, -1):
        yield src.edit(owner, *src.span(expr), shifted(src, expr, delta))
