"""Synthetic bugs for the real-repository benchmark, made apart from Codur's repair
operators (codur/repair) so the benchmark does not measure the search against itself.

Every kind here is one a single repair operator cannot undo: the search swaps and drops
operators, negates whole tests, nudges constants, swaps adjacent arguments, removes
guards and `not`; it never adds a condition, a statement, a keyword argument or a
`not`, never swaps blocks, and never renames a called function. Each mutation is a text
edit of one span of one file, so its patch is small and readable.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

OPPOSITES = {
    "min": "max", "max": "min", "any": "all", "all": "any",
    "startswith": "endswith", "endswith": "startswith", "lstrip": "rstrip",
    "rstrip": "lstrip", "upper": "lower", "lower": "upper", "find": "rfind", "rfind": "find",
    "index": "rindex", "rindex": "index", "keys": "values", "values": "keys",
}  # fmt: skip
"""A call to one of these made to the other (`wrong_call`)."""


@dataclass(frozen=True)
class Mutation:
    kind: str
    line: int
    """1-based line of the edit's start."""
    start: int
    end: int
    """The replaced span: character offsets into the file's text."""
    new: str
    function: str
    """Qualified name of the enclosing function ("" at module level)."""

    def apply(self, text: str) -> str:
        return text[: self.start] + self.new + text[self.end :]


class _Text:
    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0]
        for line in text.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        """ast columns are UTF-8 byte offsets; convert to a character offset."""
        start = self.line_starts[line - 1]
        raw = self.text[start : self.line_starts[line]].encode("utf-8")
        return start + len(raw[:col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def lines(self, first: int, last: int) -> tuple[int, int]:
        """Span of whole lines first..last (1-based, inclusive)."""
        return self.line_starts[first - 1], self.line_starts[last]


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """(qualified name, function node) for every function, nested ones included."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                yield name, child
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The function's nodes, nested functions and classes excluded."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _paren(text: str, node: ast.AST) -> str:
    simple = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.Compare)
    return text if isinstance(node, simple) and "\n" not in text else f"({text})"


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def candidates(text: str) -> Iterator[Mutation]:
    """Every mutation of every kind in a module, in source order per function."""
    tree = ast.parse(text)
    src = _Text(text)
    for name, function in _functions(tree):
        for kind, node, start, end, new in _in_function(function, src):
            yield Mutation(kind, node.lineno, start, end, new, name)


def _in_function(function: ast.AST, src: _Text) -> Iterator[tuple]:
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = list(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=False)
    )
    defaults += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    for _, default in defaults:
        if isinstance(default, ast.Constant) and not isinstance(default.value, bool):
            value = default.value
            new = None
            if isinstance(value, str):
                new = repr("") if value else repr(" ")
            elif isinstance(value, int):
                new = str(value + 10)
            if new is not None:
                yield ("wrong_default", default, *src.span(default), new)
    blocks = [function.body]
    for node in _own_nodes(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                blocks.append(block)
        yield from _node_mutations(node, src)
    for block in blocks:
        yield from _block_mutations(block, function, src)


def _node_mutations(node: ast.AST, src: _Text) -> Iterator[tuple]:
    if isinstance(node, (ast.If, ast.While, ast.IfExp)) and isinstance(node.test, ast.BoolOp):
        test = node.test
        joiner = " and " if isinstance(test.op, ast.And) else " or "
        for i, value in enumerate(test.values):
            if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
                inner = _paren(src.segment(value.operand), value.operand)
                yield ("dropped_not", value, *src.span(value), inner)
            rest = [v for j, v in enumerate(test.values) if j != i]
            text = joiner.join(_paren(src.segment(v), v) for v in rest)
            yield ("removed_condition", test, *src.span(test), text)
    if isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
        elif_ = node.orelse[0]
        first, second = node.body, elif_.body
        if first[0].col_offset == second[0].col_offset:
            a = src.lines(first[0].lineno, first[-1].end_lineno)
            b = src.lines(second[0].lineno, second[-1].end_lineno)
            middle = src.text[a[1] : b[0]]
            new = src.text[b[0] : b[1]] + middle + src.text[a[0] : a[1]]
            if src.text[a[0] : a[1]] != src.text[b[0] : b[1]]:
                yield ("swapped_elif_bodies", node, a[0], b[1], new)
    if isinstance(node, ast.Call):
        positional = node.args
        if len(positional) >= 3 and not any(isinstance(a, ast.Starred) for a in positional):
            (a0, a1), (c0, c1) = src.span(positional[0]), src.span(positional[2])
            if src.text[a0:a1] != src.text[c0:c1]:
                new = src.text[c0:c1] + src.text[a1:c0] + src.text[a0:a1]
                yield ("swapped_far_args", node, a0, c1, new)
        yield from _keyword_drops(node, src)
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in OPPOSITES:
            if isinstance(func, ast.Attribute):
                end = src.offset(func.end_lineno, func.end_col_offset)
                yield ("wrong_call", node, end - len(name), end, OPPOSITES[name])
            else:
                yield ("wrong_call", node, *src.span(func), OPPOSITES[name])


def _keyword_drops(node: ast.Call, src: _Text) -> Iterator[tuple]:
    items = sorted([*node.args, *node.keywords], key=lambda n: (n.lineno, n.col_offset))
    for i, item in enumerate(items):
        if not isinstance(item, ast.keyword) or item.arg is None:
            continue
        start, end = src.span(item)
        if i > 0:
            start = src.span(items[i - 1])[1]
        elif i + 1 < len(items):
            end = src.span(items[i + 1])[0]
        yield ("dropped_keyword", item, start, end, "")


def _block_mutations(block: list[ast.stmt], function: ast.AST, src: _Text) -> Iterator[tuple]:
    body = [s for s in block if not _is_docstring(s)]
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.If) and stmt is not function.body[-1]:
            for inner in stmt.body:
                if isinstance(inner, ast.Return):
                    value = src.segment(inner.value) if inner.value is not None else "pass"
                    yield ("dropped_return", inner, *src.span(inner), value)
        simple = isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
        )
        if simple and len(body) >= 2 and i < len(body) - 1:
            start, end = src.lines(stmt.lineno, stmt.end_lineno)
            if src.text[start : src.offset(stmt.lineno, stmt.col_offset)].strip() == "":
                yield ("dropped_statement", stmt, start, end, "")
