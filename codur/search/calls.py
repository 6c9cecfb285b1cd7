"""A static call graph from the Python AST: who calls what, as far as static analysis
tells. Names are resolved through the module's imports (absolute and relative), its own
top-level definitions, `self.`/`cls.` methods of the enclosing class and `Class.attr`;
a call on any other object is kept by its attribute name alone (`*.name`), since the
object's type is unknown without running the code."""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass
from typing import Any

from codur.search.chunks import module_name


@dataclass(frozen=True)
class Definition:
    """A function, method or class: `qualname` is `module.Class.method`."""

    qualname: str
    path: str
    line: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Call:
    """`caller` (a qualname, or the module for top-level code) calls `callee` at
    `path:line`. `callee` is a qualname when resolved, else `*.attr` or a bare name."""

    caller: str
    callee: str
    path: str
    line: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *([target] if target else [])])


class _Visitor(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.module = module_name(path)
        self.is_package = path.endswith("__init__.py")
        self.imports: dict[str, str] = {}
        self.top: set[str] = set()
        self.methods: dict[str, set[str]] = {}
        self.defs: list[Definition] = []
        self.calls: list[Call] = []
        self.scope: list[str] = []
        self.classes: list[str] = []

    def run(self, tree: ast.Module) -> None:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.top.add(node.name)
            if isinstance(node, ast.ClassDef):
                self.methods[node.name] = {
                    n.name
                    for n in node.body
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                }
        self.visit(tree)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.imports[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                self.imports[head] = head

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            base = _resolve_relative(self.module, self.is_package, node.level, node.module)
        for alias in node.names:
            if alias.name != "*":
                self.imports[alias.asname or alias.name] = f"{base}.{alias.name}".strip(".")

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        qualname = ".".join([self.module, *self.scope, node.name])
        self.defs.append(Definition(qualname, self.path, node.lineno))
        self.scope.append(node.name)
        is_class = isinstance(node, ast.ClassDef)
        if is_class:
            self.classes.append(node.name)
        self.generic_visit(node)
        if is_class:
            self.classes.pop()
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _define  # noqa: N815

    def visit_Call(self, node: ast.Call) -> None:
        callee = self._name(node.func)
        if callee:
            caller = ".".join([self.module, *self.scope])
            self.calls.append(Call(caller, callee, self.path, node.lineno))
        self.generic_visit(node)

    def _local(self, name: str) -> str | None:
        if name in self.imports:
            return self.imports[name]
        if name in self.top:
            return f"{self.module}.{name}"
        return None

    def _name(self, func: ast.expr) -> str | None:
        if isinstance(func, ast.Name):
            return self._local(func.id) or func.id
        if not isinstance(func, ast.Attribute):
            return None
        attr, value = func.attr, func.value
        if isinstance(value, ast.Name):
            if value.id in ("self", "cls") and self.classes:
                cls = self.classes[-1]
                if attr in self.methods.get(cls, ()):
                    return f"{self.module}.{cls}.{attr}"
                return f"*.{attr}"
            base = self._local(value.id)
            if base:
                return f"{base}.{attr}"
        dotted = _dotted(value)
        if dotted and "." in dotted:
            head, _, rest = dotted.partition(".")
            base = self._local(head)
            if base:
                return f"{base}.{rest}.{attr}"
        return f"*.{attr}"


def _dotted(node: ast.expr) -> str | None:
    """`a.b.c` for a chain of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def python_calls(path: str, source: str) -> tuple[list[Definition], list[Call]]:
    """The definitions and calls of one Python file (none if it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [], []
    visitor = _Visitor(path)
    visitor.run(tree)
    return visitor.defs, visitor.calls


def matches(qualname: str, query: str) -> bool:
    """Whether `qualname` is what `query` names: the same, or its dotted tail
    (`load`, `Loader.load`, `pkg.mod.Loader.load`)."""
    query = query.strip().rstrip("()")
    return qualname == query or qualname.endswith("." + query)


def callee_matches(callee: str, query: str) -> bool:
    """Whether a call's target is `query`; an unresolved `*.attr` call matches any query
    whose last part is `attr`."""
    if callee.startswith("*."):
        return callee[2:] == query.strip().rstrip("()").split(".")[-1]
    return matches(callee, query)
