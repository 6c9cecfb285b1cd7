"""A static call graph from the Python AST: who calls what, as far as static analysis
tells. Names are resolved through the module's imports (absolute and relative), its own
top-level definitions, `self.`/`cls.` methods of the enclosing class and `Class.attr`.
A local name assigned a class's instance (`cache = LRUCache(2)`, a CapWords call) has
that type in its function: its method calls are `Class.method`, and what Python calls
implicitly on it is recorded too (`cache[k]` -> `__getitem__`, `len(cache)` ->
`__len__`, `for x in cache` -> `__iter__`, ...). A local assigned what a call returns
(`doc = parse(text)`), and a call's result used at once (`parse(text).dump()`), hold
`parse()`: its methods are `pkg.parse().dump`, which the resolver follows to the class
`parse` is annotated to return (`Definition.returns`). A call on any other object is
kept by its attribute name alone (`*.name`), since its type is unknown without running
the code."""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass
from typing import Any, Literal

from codur.search.annotations import returned_class
from codur.search.chunks import module_name

IMPLICIT = {
    "len": "__len__",
    **dict.fromkeys(("iter", "list", "set", "frozenset", "tuple", "sorted", "dict"), "__iter__"),
    "reversed": "__reversed__",
    "bool": "__bool__",
}
"""Builtins called with an object, and the method of the object's class Python calls."""
SUBSCRIPT = {ast.Load: "__getitem__", ast.Store: "__setitem__", ast.Del: "__delitem__"}


@dataclass(frozen=True)
class Definition:
    """A function, method or class: `qualname` is `module.Class.method`; a class's
    `bases` as its module resolves them."""

    qualname: str
    path: str
    line: int
    kind: Literal["def", "class"] = "def"
    bases: tuple[str, ...] = ()
    returns: str = ""
    """A function's return annotation as its module resolves it, when it names one class
    (`-> TOMLDocument`, `-> Array | None`, `-> "Node"`); else empty."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Definition:
        return cls(**{**data, "bases": tuple(data.get("bases", ()))})

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
        self.functions: set[str] = set()
        """The module's top-level functions (a reference to one stands for a call)."""
        self.methods: dict[str, set[str]] = {}
        self.defs: list[Definition] = []
        self.calls: list[Call] = []
        self.scope: list[str] = []
        self.classes: list[str] = []
        self.types: list[dict[str, str]] = [{}]
        """Per function being visited: local name -> the class it holds an instance of."""
        self.bound: list[set[str]] = [set()]
        """Per function being visited: the names its code (or an enclosing function's)
        binds, which are not the module's functions there."""
        self.called: ast.expr | None = None
        self.seen: set[Call] = set()

    def run(self, tree: ast.Module) -> None:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self.top.add(node.name)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.add(node.name)
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
        is_class = isinstance(node, ast.ClassDef)
        bases = tuple(b for e in node.bases if (b := self._name(e))) if is_class else ()
        kind = "class" if is_class else "def"
        own = ".".join([self.module, *self.scope]) if self.classes else ""
        returns = "" if is_class else returned_class(node.returns, self._class_name, own)
        self.defs.append(Definition(qualname, self.path, node.lineno, kind, bases, returns))
        self.scope.append(node.name)
        self.types.append({})
        self.bound.append(self.bound[-1] | (set() if is_class else _binds(node)))
        if is_class:
            self.classes.append(node.name)
        self.generic_visit(node)
        if is_class:
            self.classes.pop()
        self.types.pop()
        self.bound.pop()
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _define  # noqa: N815

    def _call(self, callee: str, line: int) -> None:
        call = Call(".".join([self.module, *self.scope]), callee, self.path, line)
        if call not in self.seen:  # `f(f)`: one call of f on that line
            self.seen.add(call)
            self.calls.append(call)

    def visit_Call(self, node: ast.Call) -> None:
        self.called = node.func  # a call's own name is no reference (recorded here)
        callee = self._name(node.func)
        if callee:
            self._call(callee, node.lineno)
        if isinstance(node.func, ast.Name) and node.func.id in IMPLICIT and node.args:
            self._implicit(node.args[0], IMPLICIT[node.func.id])
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        """`x = Class(...)`: `x` holds a `Class` in this function (any other value: not)."""
        self.generic_visit(node)
        for target in node.targets:
            if isinstance(target, ast.Name):
                cls = self._constructed(node.value)
                if cls:
                    self.types[-1][target.id] = cls
                else:
                    self.types[-1].pop(target.id, None)

    def visit_Name(self, node: ast.Name) -> None:
        """A name bound or deleted any other way (`for`, `with`, unpacking) holds no
        known instance any more. A function of the module passed or stored as a value
        (`partial(convert, ...)`, `key=rank`) is called by whoever receives it, which
        static analysis does not see: the reference stands for the call."""
        if isinstance(node.ctx, ast.Store | ast.Del):
            self.types[-1].pop(node.id, None)
        elif node.id in self.functions and node is not self.called and self._local(node.id):
            self._call(f"{self.module}.{node.id}", node.lineno)

    def _constructed(self, value: ast.expr) -> str | None:
        """What a value is an instance of: `Class` for `Class(...)`, `f()` for what a
        function of the code or an imported one returns (None: unknown, as for what a
        parameter or a builtin returns)."""
        if not isinstance(value, ast.Call):
            return None
        callee, func = self._name(value.func), value.func
        if not callee or callee.startswith("*."):
            return None
        if callee.rsplit(".", 1)[-1][:1].isupper():
            return callee
        known = not isinstance(func, ast.Name) or self._local(func.id) is not None
        return f"{callee}()" if known else None

    def _class_name(self, node: ast.expr) -> str:
        """A class of the module or an imported one, as a name or attribute names it."""
        name = self._local(node.id) if isinstance(node, ast.Name) else self._name(node)
        return name if name and not name.startswith("*.") else ""

    def _implicit(self, obj: ast.expr, method: str) -> None:
        if isinstance(obj, ast.Name) and (cls := self.types[-1].get(obj.id)):
            self._call(f"{cls}.{method}", obj.lineno)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self._implicit(node.value, SUBSCRIPT[type(node.ctx)])
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        for op, right in zip(node.ops, node.comparators, strict=True):
            if isinstance(op, ast.In | ast.NotIn):
                self._implicit(right, "__contains__")
        self.generic_visit(node)

    def visit_For(self, node: ast.For | ast.comprehension) -> None:
        self._implicit(node.iter, "__iter__")
        self.generic_visit(node)

    visit_comprehension = visit_For

    def _local(self, name: str) -> str | None:
        """What a name of the module is (None: a local of the function, or unknown)."""
        if name in self.bound[-1]:
            return None
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
        if isinstance(value, ast.Call) and (made := self._constructed(value)):
            return f"{made}.{attr}"
        if isinstance(value, ast.Name):
            if cls := self.types[-1].get(value.id):
                return f"{cls}.{attr}"
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


def _binds(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function's code binds: parameters (its own, a lambda's, a nested
    function's), assignment, loop, `with` and comprehension targets."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


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
