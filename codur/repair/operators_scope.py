"""Operators that need names and scopes: swapped arguments, another variable in scope,
the exception the traceback shows, a missing f prefix, a mutable default."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from itertools import pairwise

from codur.repair.registry import operator
from codur.repair.source import Mutation, Source, clip
from codur.repair.syntax import (
    BINOP,
    BUILTINS,
    DOTTED,
    FIELD,
    FUNCTIONS,
    NON_COMMUTATIVE,
    SCOPES,
    SKIPPED_FIELDS,
    binop_parts,
    docstrings,
    grouped,
    is_docstring,
    positioned_nodes,
)


@operator("swap_args")
def swap_args(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """Swap adjacent positional call arguments, and the operands of `-`, `/`, `//`, `%`, `**`."""
    for node in positioned_nodes(tree):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                continue
            for first, second in pairwise(node.args):
                (a0, a1), (b0, b1) = src.span(first), src.span(second)
                text = src.text[b0:b1] + src.text[a1:b0] + src.text[a0:a1]
                yield src.edit(node, a0, b1, text)
        elif isinstance(node, ast.BinOp) and BINOP[type(node.op)] in NON_COMMUTATIVE:
            parts = binop_parts(src, node)
            if parts:
                left, _, right = parts
                between = src.text[left[1] : right[0]]
                swapped = grouped(src, node.right, right) + between + grouped(src, node.left, left)
                yield src.replace(node, swapped)


# --- names ----------------------------------------------------------------------------


class _Scope:
    """The names one function (or the module body) binds and loads, nested scopes excluded."""

    def __init__(self, body: list[ast.stmt], params: list[str]) -> None:
        self.bound: dict[str, None] = dict.fromkeys(params)  # ordered set
        self.excluded: set[str] = set(BUILTINS) | {"self", "cls"}
        self.loads: list[ast.Name] = []
        callees: set[int] = set()
        stack: list[ast.AST] = list(reversed(body))
        while stack:
            node = stack.pop()
            if isinstance(node, SCOPES):  # a nested scope: only its name is bound here
                if not isinstance(node, ast.Lambda):
                    self.excluded.add(node.name)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.excluded.update((a.asname or a.name).split(".")[0] for a in node.names)
                continue
            self._note(node, callees)
            stack.extend(reversed(self._children(node)))
        self.loads = [name for name in self.loads if id(name) not in callees]

    def _note(self, node: ast.AST, callees: set[int]) -> None:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                self.bound.setdefault(node.id)
            elif isinstance(node.ctx, ast.Load):
                self.loads.append(node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bound.setdefault(node.name)
        elif isinstance(node, ast.comprehension):  # `for m in ...`: m is a candidate too
            for target in ast.walk(node.target):
                if isinstance(target, ast.Name):
                    self.bound.setdefault(target.id)
        elif isinstance(node, ast.Call):
            callees.add(id(node.func))

    @staticmethod
    def _children(node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.JoinedStr):
            return []
        if isinstance(node, ast.comprehension):  # its target belongs to the comprehension
            return [node.iter, *node.ifs]
        return [
            child
            for field, value in ast.iter_fields(node)
            if field not in SKIPPED_FIELDS
            for child in (value if isinstance(value, list) else [value])
            if isinstance(child, ast.AST)
        ]


def _params(args: ast.arguments) -> list[str]:
    every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return [arg.arg for arg in every if arg is not None]


@operator("wrong_variable")
def wrong_variable(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """A variable read -> each other variable its function (or the module) binds."""
    module = _Scope(tree.body, [])
    functions = [
        _Scope(n.body, _params(n.args)) for n in positioned_nodes(tree) if isinstance(n, FUNCTIONS)
    ]
    for scope in [module, *functions]:
        excluded = scope.excluded | module.excluded  # module-level imports, defs, classes
        candidates = [name for name in scope.bound if name not in excluded]
        for name in scope.loads:
            if name.id not in excluded:
                for other in candidates:
                    if other != name.id:
                        yield src.replace(name, other)


@operator("exception")
def exception(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """`except X` -> each traceback exception name and `Exception`; also `except (X, Name)`."""
    seen = [name for name in src.exception_names if DOTTED.fullmatch(name)]
    replacements = list(dict.fromkeys([*seen, "Exception"]))
    for node in positioned_nodes(tree):
        if not isinstance(node, ast.ExceptHandler) or node.type is None:
            continue
        types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        present = {src.segment(t) for t in types}
        for caught in types:
            if isinstance(caught, (ast.Name, ast.Attribute)):
                for name in replacements:
                    if name != src.segment(caught):
                        yield src.replace(caught, name)
        for name in seen:
            if name in present:
                continue
            if isinstance(node.type, ast.Tuple):
                end = src.end(types[-1])
                yield src.edit(node.type, end, end, f", {name}")
            else:
                yield src.replace(node.type, f"({src.segment(node.type)}, {name})")


# --- strings and defaults -------------------------------------------------------------


def _string_prefix(literal: str) -> str | None:
    """The prefix of a single plain string literal, or None (bytes, f, u, concatenation)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(literal).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    if sum(token.type == tokenize.STRING for token in tokens) != 1:
        return None
    prefix = re.match(r"[A-Za-z]*", literal).group()
    return None if set(prefix.lower()) & {"b", "f", "u"} else prefix


@operator("fstring")
def fstring(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """A plain string with `{name}`-like fields -> the same literal as an f-string."""
    nodes = positioned_nodes(tree)
    skipped = docstrings(tree) | {
        id(n.func.value)
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("format", "format_map")
    }
    for node in nodes:
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skipped or not FIELD.search(node.value):
            continue
        literal = src.segment(node)
        prefix = _string_prefix(literal)
        if prefix is not None:
            quote = src.start(node) + len(prefix)
            yield src.edit(node, quote, quote, "f")


def _mutable(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Dict, ast.Set)):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "dict", "set")
    )


def _defaults(args: ast.arguments) -> list[tuple[str, ast.expr]]:
    positional = [*args.posonlyargs, *args.args]
    pairs = list(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    pairs += [
        (a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None
    ]
    return [(arg.arg, default) for arg, default in pairs]


def _none_default(
    src: Source, fn: ast.FunctionDef, name: str, default: ast.expr
) -> Mutation | None:
    """`name=<default>` -> `name=None` plus `if name is None: name = <default>` in the body."""
    body = fn.body[1:] if is_docstring(fn.body[0]) else fn.body
    if not body:
        return None
    insert = src.line_start(body[0].lineno)
    indent = src.text[insert : src.start(body[0])]
    if indent.strip():  # the body shares its line with other code
        return None
    step = "\t" if "\t" in indent else "    "
    value, nl = src.segment(default), src.newline
    added = f"{indent}if {name} is None:{nl}{indent}{step}{name} = {value}{nl}"
    start, end = src.span(default)
    description = f"`{name}={clip(value, 20)}` -> `{name}=None` + `if {name} is None: ...`"
    return src.edit(default, start, insert, "None" + src.text[end:insert] + added, description)


@operator("mutable_default")
def mutable_default(tree: ast.Module, src: Source) -> Iterator[Mutation]:
    """A list/dict/set default -> None, created afresh at the top of the body."""
    for node in positioned_nodes(tree):
        if isinstance(node, FUNCTIONS):
            for name, default in _defaults(node.args):
                if _mutable(default) and (edit := _none_default(src, node, name, default)):
                    yield edit
