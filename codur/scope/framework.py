"""Code under test reaching into the test framework. The tests' verdict comes from the
framework running in the same process as the code it tests, so code that takes it up can
change what they report: replace `assertEqual`, force every report to "passed", raise
`SkipTest` or call `pytest.skip()` where the test would fail. An edit of a module of the
project is refused (`EditScope.check_write`) when it adds a framework module the module
did not name before (by `import`, or by name in a string: `__import__("unittest")`,
`mock.patch("unittest.TestCase.assertEqual")`), a skip, failure or exit of the
framework's, or an attribute set on the framework. `unittest.mock` is a library for
doubles, not the framework: code may use it.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

FRAMEWORKS = frozenset({"unittest", "pytest", "_pytest", "doctest", "nose", "nose2", "pluggy"})
DOUBLES = "unittest.mock"
STOPS = frozenset({"skip", "xfail", "fail", "exit", "importorskip", "SkipTest", "skipTest"})
"""What ends a test without its asserts: pytest.skip(), raise unittest.SkipTest, ..."""
_NAMED = re.compile(
    r"^(?:(?:_pytest|unittest)(?:\.[A-Za-z_]\w*)*|(?:pytest|doctest)(?:\.[A-Za-z_]\w*)+)$"
)
"""A string naming the framework's modules or members: `unittest`, `_pytest.reports`,
`pytest.skip`; not a bare `pytest` (a command a program runs), nor `nose` (a word)."""
_FILE = re.compile(r"\.(?:ini|py|cfg|toml|txt|json|ya?ml|log)$")
_IMPORT_LINE = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_][\w.]*)", re.MULTILINE)
_STRING = re.compile(r"""["']([\w.]+)["']""")


def _framework(dotted: str) -> bool:
    top = dotted.split(".")[0]
    return top in FRAMEWORKS and not (dotted + ".").startswith(DOUBLES + ".")


def _root(node: ast.AST) -> str | None:
    """The name an attribute chain or call starts at (`unittest.TestCase.x`: `unittest`)."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def framework_uses(source: str) -> Counter[str]:
    """What `source` takes from the test framework, each use by its text: the modules it
    names, the framework's stops it calls or raises, the attributes of it it sets."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # the names its import lines and strings give, at least
        named = [m for m in _STRING.findall(source) if _NAMED.match(m) and not _FILE.search(m)]
        found = [m for m in [*_IMPORT_LINE.findall(source), *named] if _framework(m)]
        return Counter(found)
    uses: Counter[str] = Counter()
    bound = bound_names(tree, uses)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if _NAMED.match(text) and not _FILE.search(text) and _framework(text):
                uses[text] += 1
    uses.update(_acts(tree, bound))
    return uses


def bound_names(tree: ast.Module, uses: Counter[str] | None = None) -> set[str]:
    """The names `tree` binds to the test framework: its modules, their members
    (`from pytest import skip`) and aliases (`TC = unittest.TestCase`); the modules it
    imports are counted into `uses`."""
    uses = Counter() if uses is None else uses
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in (a for a in node.names if a.name.split(".")[0] in FRAMEWORKS):
                framework = _framework(alias.name)
                uses.update([alias.name] if framework else [])
                if framework or not alias.asname:  # `import unittest.mock` binds `unittest`
                    bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            taken = [a for a in node.names if _framework(f"{node.module}.{a.name}")]
            uses.update([node.module] if taken else [])
            bound.update(alias.asname or alias.name for alias in taken)
    return bound | _aliases(tree, bound)


def stop_of(node: ast.AST, bound: set[str]) -> str | None:
    """The framework's stop `node` calls or raises on a `bound` name (`skip`, `SkipTest`:
    `pytest.skip()`, `raise unittest.SkipTest`), or `skipTest` on any object."""
    if not isinstance(node, ast.Raise | ast.Call):
        return None
    stop = node.exc if isinstance(node, ast.Raise) else node
    called = stop.func if isinstance(stop, ast.Call) else stop
    name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
    if name in STOPS and (_root(called) in bound or name == "skipTest"):
        return name
    return None


def _aliases(tree: ast.Module, bound: set[str]) -> set[str]:
    """Names assigned something of the framework (`TC = unittest.TestCase`)."""
    found: set[str] = set()
    for _ in range(2):  # an alias of an alias
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign) or _root(node.value) not in bound | found:
                continue
            if not ast.unparse(node.value).startswith(DOUBLES + "."):  # a mock is no alias
                found.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return found


def _acts(tree: ast.Module, bound: set[str]) -> Counter[str]:
    """The stops called or raised, and the attributes set, on `bound` names."""
    acts: Counter[str] = Counter()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            targets = [node.args[0]] if node.func.id in ("setattr", "delattr") else []
        for target in targets:
            shown = ast.unparse(target)
            if isinstance(target, ast.Name) or _root(target) not in bound:
                continue
            if not shown.startswith(DOUBLES + "."):
                acts[f"set {shown}"] += 1
        stop = node.exc if isinstance(node, ast.Raise) else node
        called = stop.func if isinstance(stop, ast.Call) else stop
        name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
        if isinstance(node, ast.Raise | ast.Call) and name in STOPS and _root(called) in bound:
            acts[f"{name}()" if isinstance(node, ast.Call) else f"raise {name}"] += 1
    return acts


def takes_up_framework(path: str, old: str | None, new: str) -> str | None:
    """Why writing `new` over `old` at `path` is refused (None: it is not)."""
    if not path.endswith(".py"):
        return None
    added = sorted((framework_uses(new) - framework_uses(old or "")).keys())
    if not added:
        return None
    return (
        f"the edit makes {path} take up the test framework ({', '.join(added)}): code "
        "under test that reaches into it can change what the tests report (skip a test, "
        "turn a failure into a pass). Fix the code itself"
    )
