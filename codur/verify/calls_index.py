"""One module as verify/calls.py reads it: the words its import-time code uses, its
functions and classes with the words each uses, and its imports' aliases."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from dataclasses import dataclass, field

from codur.verify.fixtures import NO_FIXTURES, Fixtures
from codur.verify.test_reading import (
    SET_UP,
    FileRules,
    asked_fixtures,
    class_patches,
    may_not_run,
    module_may_not_run,
    patch_target,
    patched,
    rules_of,
)

_WORD = re.compile(r"\w+")
_Def = ast.FunctionDef | ast.AsyncFunctionDef
TRANSPARENT = frozenset(
    {
        "property", "setter", "getter", "deleter", "cached_property", "staticmethod",
        "classmethod", "abstractmethod", "lru_cache", "cache", "wraps", "contextmanager",
        "asynccontextmanager", "overload", "override", "final", "dataclass",
        "total_ordering", "singledispatch", "singledispatchmethod",
    }
)  # fmt: skip
"""Decorators that neither call nor register what they decorate: it is used by name."""


@dataclass(frozen=True)
class Function:
    name: str
    qualname: str
    owner: str | None
    """The qualified name of the class it is a method of (None: not a method)."""
    words: frozenset[str]
    registered: bool
    """Under a decorator that may register or call it."""

    @property
    def implicit(self) -> bool:
        """Called without its name being used (once its class is): a special method, or
        a registered one."""
        return self.registered or (self.name.startswith("__") and self.name.endswith("__"))


@dataclass(frozen=True)
class Class:
    name: str
    qualname: str
    bases: frozenset[str]
    registered: bool


@dataclass(frozen=True)
class RunUse:
    """One test of a test file: the words it uses and the fixtures it asks for (a
    conftest's fixture may skip it, or patch what it calls)."""

    words: frozenset[str]
    asked: frozenset[str]
    name: str = ""
    """The test function's name (a run's passing ids say whether it ran)."""
    patched: frozenset[str] = frozenset()
    """What it patches (its own, its class's, its file's fixtures'), as `owner.name`:
    nothing it calls reaches the project's ones (`test_reading.blocked_names`)."""
    may_skip: bool = False
    """By the file's own reading, it may not run (a skip marker, a skip in its body...):
    it counts only where a run's passing ids show it ran."""
    owner: str = ""
    """The class it is a method of (`Outer.Inner`; empty: a module-level test)."""


@dataclass(frozen=True)
class Module:
    top: frozenset[str]
    """Words its import-time code uses (outside functions and its `__main__` block)."""
    main: frozenset[str] = frozenset()
    """Words its `if __name__ == "__main__":` blocks use."""
    test_rest: frozenset[str] = frozenset()
    """As a test file: the words its code outside its tests uses."""
    test_runs: tuple[RunUse, ...] = ()
    """As a test file: its tests that may run (not under a skip marker...)."""
    fixtures: Fixtures = NO_FIXTURES
    """As a conftest.py: what its fixtures do to the tests that use them."""
    defined: frozenset[str] = frozenset()
    """The names its module-level functions define (a test file's own fixtures)."""
    functions: tuple[Function, ...] = ()
    classes: tuple[Class, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    """(name as imported, name in its module): `from ops import sub as minus`."""
    defs: list[tuple[str, _Def]] = field(default_factory=list, compare=False)


def parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _decorator(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _registered(node: _Def | ast.ClassDef) -> bool:
    return any(_decorator(d) not in TRANSPARENT for d in node.decorator_list)


def _skipped(node: ast.AST) -> bool:
    """Uses nothing: an import, a docstring (or any bare string), `__all__ = ...`."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
    return isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in targets
    )


def words(
    nodes: list[ast.AST | None],
    into_defs: bool = True,
    rules: FileRules | None = None,
    runs: list[RunUse] | None = None,
) -> frozenset[str]:
    """The words `nodes` use; `into_defs` False: not inside functions' bodies (their
    decorators and defaults run where they stand); `rules`: read as a test file, by
    these (`codur.verify.test_reading`), each test's words into `runs`."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node is None or _skipped(node):  # None: a keyword-only argument's missing default
            continue
        if rules is not None and (test := _test_words(node, rules, runs=runs)) is not None:
            found |= test
            continue
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(_WORD.findall(node.value))
        if isinstance(node, _Def) and not into_defs:
            stack += [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]
            continue
        if isinstance(node, ast.ClassDef) and not into_defs:  # bases: apart (Class.bases)
            stack += [b for b in node.bases if not isinstance(b, ast.Name | ast.Attribute)]
            stack += [*node.decorator_list, *node.keywords, *node.body]
            continue
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(found)


def _test_words(
    node: ast.AST,
    rules: FileRules,
    around: frozenset[str] = frozenset(),
    runs: list[RunUse] | None = None,
    skipped: bool = False,
    owner: str = "",
) -> frozenset[str] | None:
    """What `node` of a test file uses, read as a test (None: read it as any code): a
    test that may not run uses nothing (`skipped`: its class or module may not run), one
    that patches a name does not call it (nor do the tests of a class that patches it:
    `around`), and a patch's own string names nothing. A test's words go into `runs`
    when given (they are the test's, not the file's), those that may not run too, with
    the class they are in (`owner`)."""
    skip = skipped or may_not_run(node, rules)
    if skip and (runs is None or not isinstance(node, _Def | ast.ClassDef)):
        return frozenset()
    if isinstance(node, _Def) and rules.is_test(node.name):
        if id(node) in rules.shadowed:  # a later test of that name replaces it
            return frozenset()
        parts = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults, *node.body]
        replaced = frozenset(patched(node, rules, around))
        used = words(parts, rules=rules)
        if runs is None:  # read apart from a file's runs: its patched names set aside
            return used - {t.rpartition(".")[2] for t in replaced}
        asked = frozenset(asked_fixtures(node))
        runs.append(RunUse(used, asked, node.name, replaced, skip, owner))
        return frozenset()
    inherited = class_patches(node) if isinstance(node, ast.ClassDef) else frozenset()
    if isinstance(node, ast.ClassDef) and (inherited or skip or runs is not None):
        found: set[str] = set()
        inner = f"{owner}.{node.name}" if owner else node.name
        for part in [*node.bases, *node.keywords, *node.decorator_list, *node.body]:
            test = _test_words(part, rules, around | inherited, runs, skip, inner)
            if test is None:
                test = frozenset() if skip else words([part], rules=rules, runs=runs)
            found |= test
        return frozenset(found)
    if skip:
        return frozenset()
    if (target := patch_target(node)) is not None:
        return words([c for c in ast.iter_child_nodes(node) if c is not target], rules=rules)
    return None


def _is_main(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (either way round)."""
    test = node.test if isinstance(node, ast.If) else None
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    sides = [test.left, test.comparators[0]]
    name = any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
    return name and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def index(tree: ast.Module | None, text: str, tests: tuple[str, ...] | None = None) -> Module:
    """The module `text` (parsed as `tree`; None: it does not parse, and every word of it
    is import-time code). Functions and classes come in source order; `tests`: read as a
    test file too, whose test functions these name (pytest's `python_functions`: prefixes
    or globs)."""
    if tree is None:
        every = frozenset(_WORD.findall(text))
        return Module(top=every, test_rest=every)
    functions, classes, defs = [], [], []
    stack: list[tuple[ast.AST, str, str | None]] = [(tree, "", None)]
    while stack:  # statements only: no function is defined inside an expression
        node, prefix, owner = stack.pop()
        if isinstance(node, _Def):
            qualname = f"{prefix}{node.name}"
            defs.append((qualname, node))
            used = words([*node.body, *node.args.defaults, *node.args.kw_defaults])
            functions.append(Function(node.name, qualname, owner, used, _registered(node)))
            prefix, owner = f"{qualname}.", None
        elif isinstance(node, ast.ClassDef):
            qualname = f"{prefix}{node.name}"
            bases = frozenset(_decorator(b) for b in node.bases) - {""}
            classes.append(Class(node.name, qualname, bases, _registered(node)))
            prefix, owner = f"{qualname}.", qualname
        children = [c for c in ast.iter_child_nodes(node) if _holds_statements(c)]
        stack.extend((c, prefix, owner) for c in reversed(children))
    main = [n for n in tree.body if _is_main(n)]
    aliases = tuple(
        (a.asname, a.name.rsplit(".", 1)[-1])
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
        if a.asname
    )
    module = Module(
        top=words([n for n in tree.body if n not in main], into_defs=False),
        main=words(main),
        functions=tuple(functions),
        classes=tuple(classes),
        aliases=aliases,
        defs=defs,
    )
    return module if tests is None else _as_test_file(module, tree, tests)


def _as_test_file(module: Module, tree: ast.Module, tests: tuple[str, ...]) -> Module:
    """`module` with what it holds as a test file: its tests (each apart), the words of
    its module-level code, its fixtures. Its other functions (helpers, fixtures) are
    called as any function is, read as test code (a patch's string names nothing); its
    set-up methods are called by the framework, its classes instantiated."""
    rules = rules_of(tree, tests)
    runs: list[RunUse] = []
    kept = _tests_run(tree, rules)
    for node in (n for n in tree.body if n not in kept):  # under a module-level skip
        _test_words(node, rules, runs=runs, skipped=True)
    functions = tuple(
        dataclasses.replace(unit, words=frozenset(), registered=False)  # its run: apart
        if rules.is_test(unit.name)
        else dataclasses.replace(
            unit,
            words=words([*node.body, *node.args.defaults, *node.args.kw_defaults], rules=rules),
            registered=unit.registered or unit.name in SET_UP,
        )
        for unit, (_, node) in zip(module.functions, module.defs, strict=True)
    )
    return dataclasses.replace(
        module,
        functions=functions,
        classes=tuple(dataclasses.replace(c, registered=True) for c in module.classes),
        test_rest=words(kept, into_defs=False, rules=rules, runs=runs),
        test_runs=tuple(runs),
        fixtures=Fixtures(rules.skipping, rules.patching, rules.autouse, rules.always),
        defined=frozenset(n.name for n in tree.body if isinstance(n, _Def)),
    )


def _tests_run(tree: ast.Module, rules: FileRules) -> list[ast.stmt]:
    """A test file's statements, less its tests when a module-level mark may skip them."""
    if not module_may_not_run(tree, rules):
        return tree.body
    tests = (n for n in tree.body if isinstance(n, _Def | ast.ClassDef))
    out = {id(n) for n in tests if n.name.lower().startswith("test")}
    return [n for n in tree.body if id(n) not in out]


def _holds_statements(node: ast.AST) -> bool:
    return isinstance(node, ast.stmt | ast.excepthandler | ast.match_case)


_KEPT: dict[bytes, Module] = {}
KEEP = 4096
"""Modules kept for the next verification, by a digest of their text (not the text)."""


def module_of(text: str, tests: tuple[str, ...] | None = None) -> Module:
    """`index` of `text` (without its syntax trees), kept for the next verification;
    `tests`: read as a test file, whose test functions these name."""
    data = "\0".join([*(tests or ["-"]), text]).encode("utf-8", "surrogatepass")
    key = hashlib.blake2b(data, digest_size=16).digest()
    if (found := _KEPT.get(key)) is None:
        whole = index(parse(text), text, tests)
        found = dataclasses.replace(whole, defs=[])
        if len(_KEPT) >= KEEP:
            _KEPT.pop(next(iter(_KEPT)))  # the oldest
        _KEPT[key] = found
    return found
