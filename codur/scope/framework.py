"""Code under test reaching into the test framework. The tests' verdict comes from the
framework running in the same process as the code it tests, so code that imports
unittest or pytest can change what they report: replace `assertEqual`, force every
report to "passed", raise `SkipTest` where the test would fail. An edit that makes a
module of the project take up the framework (it did not import one before), or that sets
an attribute of the framework wherever, is refused (`EditScope.check_write`): it is no
fix, whatever the tests say next.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

FRAMEWORKS = frozenset({"unittest", "pytest", "_pytest", "doctest", "nose", "nose2", "pluggy"})
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def _framework(dotted: str) -> bool:
    return dotted.split(".")[0] in FRAMEWORKS


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts at (`unittest.TestCase.x`: `unittest`)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def framework_uses(source: str) -> tuple[set[str], Counter[str]]:
    """What `source` takes from the test framework: the modules it imports (also by name,
    as `__import__("unittest")` or `sys.modules["_pytest.reports"]` do),
    and the attributes of them it sets, by the target's own text."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), Counter()
    imported, bound = _imports(tree)
    return imported, _patched(tree, bound | FRAMEWORKS)


def _imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The framework modules named, and the local names bound to them or their members."""
    imported: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in (a for a in node.names if _framework(a.name)):
                imported.add(alias.name)
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and _framework(node.module or ""):
            imported.add(node.module or "")
            bound.update(alias.asname or alias.name for alias in node.names)
        elif (name := _imported_by_name(node)) and _framework(name):
            imported.add(name)
    return imported, bound


def _imported_by_name(node: ast.AST) -> str | None:
    """The module `__import__("x")`, `importlib.import_module("x")` or `sys.modules["x"]`
    names (None: `node` is none of them)."""
    key: ast.expr | None = None
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        key = node.args[0] if called in ("__import__", "import_module") else None
    elif isinstance(node, ast.Subscript) and getattr(node.value, "attr", "") == "modules":
        key = node.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value if _DOTTED.match(key.value) else None
    return None


def _patched(tree: ast.Module, bound: set[str]) -> Counter[str]:
    """The attributes of `bound` names that `tree` assigns, deletes or sets."""
    patched: Counter[str] = Counter()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif _calls(node, ("setattr", "delattr")):
            targets = [node.args[0]]  # type: ignore[attr-defined]
        for target in targets:
            if not isinstance(target, ast.Name) and _root(target) in bound:
                patched[ast.unparse(target)] += 1
    return patched


def _calls(node: ast.AST, names: tuple[str, ...]) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in names
        and bool(node.args)
    )


def takes_up_framework(path: str, old: str | None, new: str) -> str | None:
    """Why writing `new` over `old` at `path` is refused (None: it is not)."""
    if not path.endswith(".py"):
        return None
    had, patched_before = framework_uses(old or "")
    has, patched_now = framework_uses(new)
    patches = sorted((patched_now - patched_before).keys())
    if patches:
        return (
            f"the edit makes {path} set {', '.join(patches)}: code under test may not change "
            "the test framework (the tests would report what it says, not what the code "
            "does). Fix the code itself"
        )
    if has and not had:
        return (
            f"the edit makes {path} import the test framework ({', '.join(sorted(has))}): "
            "code under test that reaches into it can change what the tests report (skip a "
            "test, turn a failure into a pass). Fix the code itself"
        )
    return None
