"""Expression operators: off-by-one, comparison, boolean, arithmetic, associativity,
negation, guards, constants. Each walks a module's AST and yields single-span `Mutation`s;
`mutations()` drops those that do not compile or change nothing, and duplicates.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from itertools import pairwise

from codur.repair.registry import operator
from codur.repair.source import Mutation, Source
from codur.repair.syntax import (
    ARITH_SWAPS,
    BINOP,
    COMPARE,
    COMPARE_SWAPS,
    REGROUPABLE,
    binop_parts,
    drop_not,
    is_atom,
    is_not,
    is_str,
    nudge,
    positioned_nodes,
)


@operator("off_by_one")
def off_by_one(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """range() arguments, slice bounds and indices +-1; slice bounds dropped."""
    for node in positioned_nodes(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "range" and not node.keywords:
                for arg in node.args:
                    if not isinstance(arg, ast.Starred):
                        yield from nudge(src, node, arg)
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Slice):
                for bound in (index.lower, index.upper):
                    if bound is not None:
                        yield from nudge(src, node, bound)
                        span = src.outer_span(bound, src.start(node), src.end(node))
                        yield src.edit(node, *span, "")
            elif not isinstance(index, ast.Tuple) and not is_str(index):
                yield from nudge(src, node, index)


# --- comparison, boolean, arithmetic --------------------------------------------------


@operator("comparison")
def comparison(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """Each comparison operator to its near neighbours (`<` -> `<=`, `>`; `in` -> `not in`)."""
    for node in positioned_nodes(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, (left, right) in zip(node.ops, pairwise(operands), strict=True):
                old = COMPARE[type(op)]
                span = src.token_between(left, right, old)
                for new in COMPARE_SWAPS[old] if span else ():
                    yield src.edit(node, *span, new)


@operator("boolean")
def boolean(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """`and` <-> `or` (one position at a time); `not x` -> `x`."""
    for node in positioned_nodes(tree):
        if isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for left, right in pairwise(node.values):
                span = src.token_between(left, right, old)
                if span:
                    yield src.edit(node, *span, new)
        elif is_not(node):
            yield drop_not(src, node)


@operator("arithmetic")
def arithmetic(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """Swap arithmetic operators (also in `+=`); replace `a op b` by `a` or by `b`."""
    for node in positioned_nodes(tree):
        if isinstance(node, ast.BinOp):
            parts = binop_parts(src, node)
            if parts is None:
                continue
            left, token, right = parts
            symbol = BINOP[type(node.op)]
            if not (is_str(node.left) or is_str(node.right)):
                for new in ARITH_SWAPS.get(symbol, ()):
                    yield src.edit(node, *token, new)
            yield src.replace(node, src.text[left[0] : left[1]])
            yield src.replace(node, src.text[right[0] : right[1]])
        elif isinstance(node, ast.AugAssign):
            symbol = BINOP[type(node.op)]
            span = src.token_between(node.target, node.value, symbol + "=")
            for new in ARITH_SWAPS.get(symbol, ()) if span else ():
                yield src.edit(node, *span, new + "=")


def _is_regroupable(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and BINOP[type(node.op)] in REGROUPABLE


@operator("associativity")
def associativity(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """`a op1 b op2 c`: `(a op1 b) op2 c` <-> `a op1 (b op2 c)`, for + - * / // %."""
    for node in positioned_nodes(tree):
        if not _is_regroupable(node) or not (outer := binop_parts(src, node)):
            continue
        (left, _, right), text = outer, src.text
        if _is_regroupable(node.left) and (inner := binop_parts(src, node.left)):
            a, _, b = inner  # (a op1 b) op2 c -> a op1 (b op2 c)
            regrouped = (
                f"{text[a[0] : b[0]]}({text[b[0] : b[1]]}"
                f"{text[left[1] : right[0]]}{text[right[0] : right[1]]})"
            )
            yield src.replace(node, regrouped)
        if _is_regroupable(node.right) and (inner := binop_parts(src, node.right)):
            b, _, c = inner  # a op1 (b op2 c) -> (a op1 b) op2 c
            regrouped = (
                f"({text[left[0] : left[1]]}{text[left[1] : right[0]]}{text[b[0] : b[1]]})"
                f"{text[b[1] : c[0]]}{text[c[0] : c[1]]}"
            )
            yield src.replace(node, regrouped)


# --- control flow ---------------------------------------------------------------------


@operator("negate")
def negate(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """The test of if/elif/while/ternary/assert: `t` -> `not (t)`, `not t` -> `t`."""
    for node in positioned_nodes(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            test = node.test
            if is_not(test):
                yield drop_not(src, test)
            else:
                text = src.segment(test)
                yield src.replace(test, f"not {text}" if is_atom(test) else f"not ({text})")


@operator("guard")
def guard(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """Remove `if c: continue/break/return`, and turn a lone break/continue into `pass`."""
    exits = (ast.Continue, ast.Break, ast.Return)
    for node in positioned_nodes(tree):
        if isinstance(node, ast.If) and not node.orelse and len(node.body) == 1:
            if isinstance(node.body[0], exits):
                yield src.replace(node, "pass")
        elif isinstance(node, (ast.Break, ast.Continue)):
            yield src.replace(node, "pass")


# --- constants and calls --------------------------------------------------------------


def _operand_roles(nodes: Iterable[ast.AST]) -> dict[int, tuple[str, str]]:
    """id of each BinOp operand -> (operator symbol, "left" or "right")."""
    roles = {}
    for node in nodes:
        if isinstance(node, ast.BinOp):
            symbol = BINOP[type(node.op)]
            roles[id(node.left)], roles[id(node.right)] = (symbol, "left"), (symbol, "right")
    return roles


# Operands that make a BinOp a no-op (`x - 0`, `x * 1`): the `arithmetic` operator's dropped
# operand says the same thing more plainly, so `constant` does not produce these.
_IDENTITIES = {
    ("+", "left", 0), ("+", "right", 0), ("-", "right", 0), ("*", "left", 1), ("*", "right", 1),
    ("/", "right", 1), ("//", "right", 1), ("**", "right", 1),
}  # fmt: skip


@operator("constant")
def constant(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """Int literals +-1 (unless that makes `x - 0`-like no-ops); True <-> False."""
    nodes = positioned_nodes(tree)
    roles = _operand_roles(nodes)
    for node in nodes:
        if not isinstance(node, ast.Constant):
            continue
        if isinstance(node.value, bool):
            yield src.replace(node, str(not node.value))
        elif isinstance(node.value, int):
            role = roles.get(id(node), ("", ""))
            for value in (node.value + 1, node.value - 1):
                if (*role, value) in _IDENTITIES:
                    continue
                pow_base = role == ("**", "left")
                yield src.replace(node, f"({value})" if value < 0 and pow_base else str(value))
