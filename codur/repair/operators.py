"""The mutation operators: each walks a module's AST and yields single-span `Edit`s.

Each is registered in `OPERATORS` by `@operator(name)`. They may yield edits that do not
compile or change nothing; `mutations()` filters those out and drops duplicates.
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import pairwise

from codur.repair.mutations import Edit, Source, clip, operator

_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)
_BINOP = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.MatMult: "@", ast.Div: "/",
    ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&",
}  # fmt: skip
_ARITH_SWAPS = {
    "+": ("-", "*"), "-": ("+",), "*": ("/", "+"), "/": ("//", "*"),
    "//": ("/", "%"), "%": ("//",), "**": ("*",),
}  # fmt: skip
_REGROUPABLE = {"+", "-", "*", "/", "//", "%"}
_NON_COMMUTATIVE = {"-", "/", "//", "%", "**"}
_COMPARE = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip
_COMPARE_SWAPS = {
    "<": ("<=", ">"), "<=": ("<", ">="), ">": (">=", "<"), ">=": (">", "<="),
    "==": ("!=",), "!=": ("==",), "in": ("not in",), "not in": ("in",),
    "is": ("is not",), "is not": ("is",),
}  # fmt: skip
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (*_FUNCTIONS, ast.ClassDef, ast.Lambda)
_SKIPPED_FIELDS = {"annotation", "returns"}
_BUILTINS = frozenset(dir(builtins))
_NOT = re.compile(r"not[ \t]*")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_FIELD = re.compile(
    r"(?<!\{)\{[A-Za-z_][\w.]*(?:\([^{}()]*\)|\[[^{}\[\]]*\])*(?:![rsa])?(?::[^{}]*)?\}(?!\})"
)


# --- shared helpers -------------------------------------------------------------------


@lru_cache(maxsize=8)
def walk(tree: ast.AST) -> tuple[ast.AST, ...]:
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
            if field in _SKIPPED_FIELDS:
                continue
            children = value if isinstance(value, list) else [value]
            stack.extend(child for child in children if isinstance(child, ast.AST))
    return tuple(sorted(found, key=lambda n: (n.lineno, n.col_offset)))


def is_atom(node: ast.AST) -> bool:
    """Can the node's text take an operator next to it without parentheses?"""
    return isinstance(node, _ATOMS)


def _int_value(node: ast.AST) -> int | None:
    """The value of an int literal, or of `-literal`."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _is_not(node: ast.AST) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


def _drop_not(src: Source, node: ast.UnaryOp) -> Edit:
    """`not x` -> `x`, deleting just the keyword (so parentheses around x stay)."""
    start = src.start(node)
    match = _NOT.match(src.text, start)
    return src.edit(node, start, match.end() if match else start + 3, "")


def _binop_parts(src: Source, node: ast.BinOp) -> tuple[tuple[int, int], ...] | None:
    """Spans of a BinOp's left operand, operator token and right operand (with their parens)."""
    token = src.token_between(node.left, node.right, _BINOP[type(node.op)])
    if token is None:
        return None
    left = src.outer_span(node.left, src.start(node), token[0])
    right = src.outer_span(node.right, token[1], src.end(node))
    return left, token, right


def _grouped(src: Source, node: ast.AST, span: tuple[int, int]) -> str:
    """The operand's text, parenthesised unless it is an atom or already in parentheses."""
    text = src.text[span[0] : span[1]]
    return text if is_atom(node) or span != src.span(node) else f"({text})"


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants of the module, classes and functions."""
    owners = [tree, *(n for n in walk(tree) if isinstance(n, (*_FUNCTIONS, ast.ClassDef)))]
    return {id(n.body[0].value) for n in owners if n.body and _is_docstring(n.body[0])}


def _is_docstring(stmt: ast.stmt) -> bool:
    value = getattr(stmt, "value", None)
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    )


# --- off_by_one -----------------------------------------------------------------------


def _shifted(src: Source, expr: ast.expr, delta: int) -> str:
    """The text of `expr + delta` (delta is 1 or -1), simplified where that is easy."""
    value = _int_value(expr)
    if value is not None:
        return str(value + delta)
    undo = ast.Sub if delta > 0 else ast.Add
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, undo) and _int_value(expr.right) == 1:
        parts = _binop_parts(src, expr)
        if parts:
            return src.text[parts[0][0] : parts[0][1]]
    text = src.segment(expr)
    if not is_atom(expr):
        text = f"({text})"
    return f"{text} + 1" if delta > 0 else f"{text} - 1"


def _nudge(src: Source, owner: ast.AST, expr: ast.expr) -> Iterator[Edit]:
    for delta in (1, -1):
        yield src.edit(owner, *src.span(expr), _shifted(src, expr, delta))


@operator("off_by_one")
def off_by_one(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """range() arguments, slice bounds and indices +-1; slice bounds dropped."""
    for node in walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "range" and not node.keywords:
                for arg in node.args:
                    if not isinstance(arg, ast.Starred):
                        yield from _nudge(src, node, arg)
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.Slice):
                for bound in (index.lower, index.upper):
                    if bound is not None:
                        yield from _nudge(src, node, bound)
                        span = src.outer_span(bound, src.start(node), src.end(node))
                        yield src.edit(node, *span, "")
            elif not isinstance(index, ast.Tuple) and not _is_str(index):
                yield from _nudge(src, node, index)


# --- comparison, boolean, arithmetic --------------------------------------------------


@operator("comparison")
def comparison(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """Each comparison operator to its near neighbours (`<` -> `<=`, `>`; `in` -> `not in`)."""
    for node in walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, (left, right) in zip(node.ops, pairwise(operands), strict=True):
                old = _COMPARE[type(op)]
                span = src.token_between(left, right, old)
                for new in _COMPARE_SWAPS[old] if span else ():
                    yield src.edit(node, *span, new)


@operator("boolean")
def boolean(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """`and` <-> `or` (one position at a time); `not x` -> `x`."""
    for node in walk(tree):
        if isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            for left, right in pairwise(node.values):
                span = src.token_between(left, right, old)
                if span:
                    yield src.edit(node, *span, new)
        elif _is_not(node):
            yield _drop_not(src, node)


@operator("arithmetic")
def arithmetic(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """Swap arithmetic operators (also in `+=`); replace `a op b` by `a` or by `b`."""
    for node in walk(tree):
        if isinstance(node, ast.BinOp):
            parts = _binop_parts(src, node)
            if parts is None:
                continue
            left, token, right = parts
            symbol = _BINOP[type(node.op)]
            if not (_is_str(node.left) or _is_str(node.right)):
                for new in _ARITH_SWAPS.get(symbol, ()):
                    yield src.edit(node, *token, new)
            yield src.replace(node, src.text[left[0] : left[1]])
            yield src.replace(node, src.text[right[0] : right[1]])
        elif isinstance(node, ast.AugAssign):
            symbol = _BINOP[type(node.op)]
            span = src.token_between(node.target, node.value, symbol + "=")
            for new in _ARITH_SWAPS.get(symbol, ()) if span else ():
                yield src.edit(node, *span, new + "=")


def _is_regroupable(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and _BINOP[type(node.op)] in _REGROUPABLE


@operator("associativity")
def associativity(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """`a op1 b op2 c`: `(a op1 b) op2 c` <-> `a op1 (b op2 c)`, for + - * / // %."""
    for node in walk(tree):
        if not _is_regroupable(node) or not (outer := _binop_parts(src, node)):
            continue
        (left, _, right), text = outer, src.text
        if _is_regroupable(node.left) and (inner := _binop_parts(src, node.left)):
            a, _, b = inner  # (a op1 b) op2 c -> a op1 (b op2 c)
            regrouped = (
                f"{text[a[0] : b[0]]}({text[b[0] : b[1]]}"
                f"{text[left[1] : right[0]]}{text[right[0] : right[1]]})"
            )
            yield src.replace(node, regrouped)
        if _is_regroupable(node.right) and (inner := _binop_parts(src, node.right)):
            b, _, c = inner  # a op1 (b op2 c) -> (a op1 b) op2 c
            regrouped = (
                f"({text[left[0] : left[1]]}{text[left[1] : right[0]]}{text[b[0] : b[1]]})"
                f"{text[b[1] : c[0]]}{text[c[0] : c[1]]}"
            )
            yield src.replace(node, regrouped)


# --- control flow ---------------------------------------------------------------------


@operator("negate")
def negate(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """The test of if/elif/while/ternary/assert: `t` -> `not (t)`, `not t` -> `t`."""
    for node in walk(tree):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            test = node.test
            if _is_not(test):
                yield _drop_not(src, test)
            else:
                text = src.segment(test)
                yield src.replace(test, f"not {text}" if is_atom(test) else f"not ({text})")


@operator("guard")
def guard(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """Remove `if c: continue/break/return`, and turn a lone break/continue into `pass`."""
    exits = (ast.Continue, ast.Break, ast.Return)
    for node in walk(tree):
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
            symbol = _BINOP[type(node.op)]
            roles[id(node.left)], roles[id(node.right)] = (symbol, "left"), (symbol, "right")
    return roles


# Operands that make a BinOp a no-op (`x - 0`, `x * 1`): the `arithmetic` operator's dropped
# operand says the same thing more plainly, so `constant` does not produce these.
_IDENTITIES = {
    ("+", "left", 0), ("+", "right", 0), ("-", "right", 0), ("*", "left", 1), ("*", "right", 1),
    ("/", "right", 1), ("//", "right", 1), ("**", "right", 1),
}  # fmt: skip


@operator("constant")
def constant(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """Int literals +-1 (unless that makes `x - 0`-like no-ops); True <-> False."""
    nodes = walk(tree)
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


@operator("swap_args")
def swap_args(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """Swap adjacent positional call arguments, and the operands of `-`, `/`, `//`, `%`, `**`."""
    for node in walk(tree):
        if isinstance(node, ast.Call) and len(node.args) >= 2:
            if any(isinstance(arg, ast.Starred) for arg in node.args):
                continue
            for first, second in pairwise(node.args):
                (a0, a1), (b0, b1) = src.span(first), src.span(second)
                text = src.text[b0:b1] + src.text[a1:b0] + src.text[a0:a1]
                yield src.edit(node, a0, b1, text)
        elif isinstance(node, ast.BinOp) and _BINOP[type(node.op)] in _NON_COMMUTATIVE:
            parts = _binop_parts(src, node)
            if parts:
                left, _, right = parts
                between = src.text[left[1] : right[0]]
                swapped = (
                    _grouped(src, node.right, right) + between + _grouped(src, node.left, left)
                )
                yield src.replace(node, swapped)


# --- names ----------------------------------------------------------------------------


class _Scope:
    """The names one function (or the module body) binds and loads, nested scopes excluded."""

    def __init__(self, body: list[ast.stmt], params: list[str]) -> None:
        self.bound: dict[str, None] = dict.fromkeys(params)  # ordered set
        self.excluded: set[str] = set(_BUILTINS) | {"self", "cls"}
        self.loads: list[ast.Name] = []
        callees: set[int] = set()
        stack: list[ast.AST] = list(reversed(body))
        while stack:
            node = stack.pop()
            if isinstance(node, _SCOPES):  # a nested scope: only its name is bound here
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
            if field not in _SKIPPED_FIELDS
            for child in (value if isinstance(value, list) else [value])
            if isinstance(child, ast.AST)
        ]


def _params(args: ast.arguments) -> list[str]:
    every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    return [arg.arg for arg in every if arg is not None]


@operator("wrong_variable")
def wrong_variable(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """A variable read -> each other variable its function (or the module) binds."""
    module = _Scope(tree.body, [])
    functions = [_Scope(n.body, _params(n.args)) for n in walk(tree) if isinstance(n, _FUNCTIONS)]
    for scope in [module, *functions]:
        excluded = scope.excluded | module.excluded  # module-level imports, defs, classes
        candidates = [name for name in scope.bound if name not in excluded]
        for name in scope.loads:
            if name.id not in excluded:
                for other in candidates:
                    if other != name.id:
                        yield src.replace(name, other)


@operator("exception")
def exception(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """`except X` -> each traceback exception name and `Exception`; also `except (X, Name)`."""
    seen = [name for name in src.exception_names if _DOTTED.fullmatch(name)]
    replacements = list(dict.fromkeys([*seen, "Exception"]))
    for node in walk(tree):
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
def fstring(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """A plain string with `{name}`-like fields -> the same literal as an f-string."""
    nodes = walk(tree)
    skipped = _docstrings(tree) | {
        id(n.func.value)
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("format", "format_map")
    }
    for node in nodes:
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skipped or not _FIELD.search(node.value):
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


def _none_default(src: Source, fn: ast.FunctionDef, name: str, default: ast.expr) -> Edit | None:
    """`name=<default>` -> `name=None` plus `if name is None: name = <default>` in the body."""
    body = fn.body[1:] if _is_docstring(fn.body[0]) else fn.body
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
def mutable_default(tree: ast.Module, src: Source) -> Iterator[Edit]:
    """A list/dict/set default -> None, created afresh at the top of the body."""
    for node in walk(tree):
        if isinstance(node, _FUNCTIONS):
            for name, default in _defaults(node.args):
                if _mutable(default) and (edit := _none_default(src, node, name, default)):
                    yield edit
