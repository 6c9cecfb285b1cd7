"""Which tests of a test file may not run, and what a test replaces before it calls: the
rules verify/calls.py reads test files by.

A test may not run (or its failure is expected) under a skip or xfail marker (or the
module's own name for one, `needs_db = pytest.mark.skipif(...)`), under a `pytestmark`
of its module (at any depth of its module-level code) or of its class, after a
module-level `pytest.skip(allow_module_level=True)` or `importorskip`, or when it may
skip itself: a stop of the framework's (`pytest.skip()`, `skip()` imported from pytest,
`pytest.xfail()`, `self.skipTest()`, `raise SkipTest`) in its body, in its class's
set-up, or in a fixture or helper of the file it asks for or calls. What such a test uses
is no use a passing suite vouches for. A name a test patches (`monkeypatch.setattr`,
`mock.patch`, `patch.object`: in its body, on its class, in its class's set-up, or in a
fixture of the file it asks for or that is autouse) is not called by that test, unless
the patch wraps the real one or replaces a standard-library name (`subprocess.run`); the
patch's own strings name nothing.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from fnmatch import fnmatch

from codur.scope.framework import bound_names, stop_of

_Def = ast.FunctionDef | ast.AsyncFunctionDef
NOT_RUN = frozenset({"skip", "skipif", "skipIf", "skipUnless", "xfail", "expectedFailure"})
"""Markers of a test that may not run, or whose failure is expected."""
SET_UP = frozenset({"setUp", "setUpClass", "setup_method", "setup_class", "setup"})
"""Methods the test framework calls on a test class before its tests."""
_STANDARD = frozenset(sys.stdlib_module_names) | {"builtins"}
TEST_FUNCTIONS = ("test",)
"""pytest's default `python_functions`."""


@dataclass(frozen=True)
class FileRules:
    """What a test file's own definitions say of its tests."""

    markers: frozenset[str]
    """NOT_RUN and the names the module binds to such markers."""
    bound: frozenset[str]
    """Names bound to the test framework (`codur.scope.framework.bound_names`)."""
    skipping: frozenset[str]
    """Module-level functions (fixtures, helpers) that may skip the test using them."""
    always: frozenset[str]
    """Of them, those that skip whatever the test (`Fixtures.always`)."""
    patching: dict[str, frozenset[str]]
    """Module-level functions (fixtures) -> the names they patch."""
    autouse: frozenset[str]
    """Fixtures every test of the file uses."""
    functions: tuple[str, ...] = TEST_FUNCTIONS
    """The names of test functions (pytest's `python_functions`: prefixes or globs)."""
    shadowed: frozenset[int] = frozenset()
    """Definitions (by `id`) a later one of the same name in the same body replaces:
    pytest collects the last."""

    def is_test(self, name: str) -> bool:
        return any(
            fnmatch(name, r) if "*" in r or "?" in r else name.startswith(r) for r in self.functions
        )


def asked_fixtures(node: _Def) -> set[str]:
    """The fixtures a test function asks for by its arguments."""
    return {a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]}


def chain(node: ast.AST) -> set[str]:
    """The names of an expression's own chain (`pytest.mark.skipif(...)`: pytest, mark,
    skipif), not of its arguments (`parametrize(..., [pytest.param(marks=...)])`)."""
    names: set[str] = set()
    while True:
        node = node.func if isinstance(node, ast.Call) else node
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
            node = node.value
        else:
            return names | ({node.id} if isinstance(node, ast.Name) else set())


def rules_of(tree: ast.Module, functions: tuple[str, ...] = TEST_FUNCTIONS) -> FileRules:
    markers = set(NOT_RUN)
    for node in _module_level(tree):
        value = getattr(node, "value", None)
        if isinstance(node, ast.Assign) and value is not None and _marks(value, markers):
            markers |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    bound = frozenset(bound_names(tree))
    defs = [n for n in tree.body if isinstance(n, _Def)]
    none = frozenset[str]()
    rules = FileRules(frozenset(markers), bound, none, none, {}, none, functions)
    skipping = {f.name for f in defs if _stops(f.body, rules)}
    always = {f.name for f in defs if _stops(_unconditional(f.body), rules)}
    patching = {f.name: frozenset(patched_in(f.body)) for f in defs}
    autouse = {f.name for f in defs if any(_autouse(d) for d in f.decorator_list)}
    patching = {name: names for name, names in patching.items() if names}
    found = frozenset(skipping), frozenset(always), patching, frozenset(autouse)
    return FileRules(frozenset(markers), bound, *found, functions, _shadowed(tree))


def _shadowed(tree: ast.Module) -> frozenset[int]:
    """The functions a later definition of the same name in the same body replaces."""
    found: set[int] = set()
    for body in [tree.body, *(n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        last: dict[str, ast.stmt] = {}
        for node in body:
            if isinstance(node, _Def | ast.ClassDef):
                if node.name in last:
                    found.add(id(last[node.name]))
                last[node.name] = node
    return frozenset(found)


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements, those under its `if`, `try` and `with` blocks too."""
    found, stack = [], list(tree.body)
    while stack:
        node = stack.pop(0)
        found.append(node)
        if isinstance(node, ast.If | ast.Try | ast.With):
            stack += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            stack += [s for h in getattr(node, "handlers", []) for s in h.body]
    return found


def _marks(value: ast.AST, markers: set[str] | frozenset[str]) -> bool:
    items = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
    return any(chain(item) & markers for item in items)


def _autouse(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value
        for k in decorator.keywords
    )


def _stops(body: list[ast.stmt], rules: FileRules) -> bool:
    """A framework stop in `body` (an `importorskip` of a standard module always runs)."""
    for node in (n for stmt in body for n in ast.walk(stmt)):
        name = stop_of(node, set(rules.bound))
        if name in ("fail", "exit") or name is None:
            continue
        if name == "importorskip" and _standard(node):
            continue
        return True
    return False


def _unconditional(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of `body` that run whatever happens (not under `if`, `try`...)."""
    return [s for s in body if isinstance(s, ast.Expr | ast.Raise | ast.Assign)]


def _standard(call: ast.AST) -> bool:
    first = call.args[0] if isinstance(call, ast.Call) and call.args else None
    return isinstance(first, ast.Constant) and str(first.value).split(".")[0] in _STANDARD


def module_may_not_run(tree: ast.Module, rules: FileRules) -> bool:
    """A `pytestmark` of a skip or xfail marker, a module-level skip or `importorskip`:
    every test of the file may not run; so does a skipping autouse fixture."""
    for node in _module_level(tree):
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        value = getattr(node, "value", None)
        named = any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)
        if named and value is not None and _marks(value, rules.markers):
            return True
        if isinstance(node, ast.Expr | ast.Assign) and _stops([node], rules):
            return True
    return bool(rules.autouse & rules.always)


def may_not_run(node: ast.AST, rules: FileRules) -> bool:
    """A test function or class under one of the markers, or that may skip itself."""
    if not isinstance(node, _Def | ast.ClassDef):
        return False
    if any(chain(d) & rules.markers for d in node.decorator_list):
        return True
    if isinstance(node, ast.ClassDef):
        marked = [s for s in node.body if _pytestmark(s) and _marks(s.value, rules.markers)]
        return bool(marked) or _stops([s for s in _set_up(node) for s in s.body], rules)
    if not rules.is_test(node.name):
        return False
    asked = asked_fixtures(node)
    used = {n.id for s in node.body for n in ast.walk(s) if isinstance(n, ast.Name)}
    return _stops(node.body, rules) or bool((asked | used) & rules.skipping)


def _pytestmark(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
    )


def _set_up(cls: ast.ClassDef) -> list[_Def]:
    return [n for n in cls.body if isinstance(n, _Def) and n.name in SET_UP]


def patch_target(node: ast.AST) -> ast.expr | None:
    """The string naming what a patch call replaces (its last dotted part is the name):
    `monkeypatch.setattr(calc, "sub", f)`, `monkeypatch.setattr("calc.sub", f)`,
    `patch("calc.sub")`, `patch.object(calc, "sub")`, or one built at run time
    (`patch(f"{MODULE}.sub")`); None: no such call."""
    if not isinstance(node, ast.Call):
        return None
    names = chain(node)
    if not names & {"setattr", "patch"} or names & {"dict", "multiple"}:
        return None
    for arg in node.args[:2]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value:
            return arg
        if isinstance(arg, ast.JoinedStr | ast.BinOp) and _literal_end(arg):
            return arg
    return None


def _literal_end(node: ast.expr) -> str:
    """The literal text a string built at run time ends with (`f"{M}.sub"`: `.sub`)."""
    last = node.values[-1] if isinstance(node, ast.JoinedStr) and node.values else node
    last = last.right if isinstance(last, ast.BinOp) else last
    value = last.value if isinstance(last, ast.Constant) else None
    return value if isinstance(value, str) else ""


def _replaced(node: ast.Call, target: ast.expr) -> str | None:
    """What a patch replaces, as `owner.name` (`*.name`: an owner built at run time;
    `=obj.name`: an attribute of an object, `setattr(calc, "scale", f)`);
    None when it wraps the real one (a spy) or replaces a standard-library name
    (`subprocess.run`: the code under test still runs)."""
    if any(k.arg == "wraps" for k in node.keywords):
        return None
    if isinstance(target, ast.Constant):
        text = str(target.value)
        owner = text.rsplit(".", 1)[0] if "." in text else ""
    else:
        text, owner = _literal_end(target), "*"
    if node.args and node.args[0] is not target:  # an object: `=` marks it as one
        owner = "=" + ast.unparse(node.args[0])
    if owner.lstrip("=").split(".")[0] in _STANDARD or not text.rsplit(".", 1)[-1]:
        return None
    return f"{owner}.{text.rsplit('.', 1)[-1]}"


def blocked_names(patched: Iterable[str], project: Collection[str]) -> frozenset[str]:
    """The names patches replace in the project. A dotted target (`calc.scale`,
    `pkg.mod.Calc.scale`) replaces the project's function when one of its parts is a
    module, package or class of the project (`project`), or it was built at run time; a
    patch of another library's function (`requests.get`) leaves the project's functions
    of that name alone. An object's attribute (`setattr(c, "scale", f)`: an alias, an
    instance) is taken for the project's."""
    found = set()
    for target in patched:
        owner, _, name = target.rpartition(".")
        dotted = not owner.startswith("=")
        if not dotted or owner == "*" or set(owner.split(".")) & set(project):
            found.add(name)
    return frozenset(found)


def patched_in(nodes: list[ast.expr] | list[ast.stmt]) -> set[str]:
    """What the patches in `nodes` (decorators or statements) replace (`owner.name`)."""
    found = set()
    for node in (n for top in nodes for n in ast.walk(top)):
        if (target := patch_target(node)) is not None and isinstance(node, ast.Call):
            found |= {name} if (name := _replaced(node, target)) else set()
    return found


def patched(node: _Def, rules: FileRules, around: frozenset[str] = frozenset()) -> set[str]:
    """What a test replaces (`owner.name`): by its decorators or in its body, by the
    fixtures of the file it asks for or that are autouse, and `around` (its class's
    patches)."""
    asked = asked_fixtures(node)
    fixtures = (asked | rules.autouse) & rules.patching.keys()
    found = patched_in([*node.decorator_list, *node.body]) | set(around)
    return found.union(*(rules.patching[f] for f in fixtures))


def class_patches(cls: ast.ClassDef) -> frozenset[str]:
    """What a class's decorators and set-up methods patch for each of its tests."""
    return frozenset(patched_in([*cls.decorator_list, *(s for m in _set_up(cls) for s in m.body)]))
