"""A folder's Python modules as the tests import them: the file behind a module name, and
the names a module defines at its top level."""

from __future__ import annotations

import ast
from collections.abc import Container
from pathlib import Path, PurePosixPath

from codur import source_encoding


class OnDisk:
    """The folder's files, asked one by one (when no listing of them is at hand)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and (self.root / path).is_file()


def module_file(module: str, files: Container[str], near: str = "", level: int = 0) -> str | None:
    """The folder's file for a dotted `module` imported from the file `near` (`level`: the
    dots of a relative import), as a module or a package. An absolute import is looked
    up where a test run finds it: beside `near` (pytest puts a test's folder first on
    `sys.path`), at the root, then under `src/`."""
    parts = [p for p in module.split(".") if p]
    if not parts:
        return None
    here = PurePosixPath(near).parent
    if level:
        for _ in range(level - 1):
            here = here.parent
        bases = [here]
    else:
        bases = list(dict.fromkeys([here, PurePosixPath("."), PurePosixPath("src")]))
    for base in bases:
        for tail in ("/".join(parts) + ".py", "/".join([*parts, "__init__.py"])):
            path = (base / tail).as_posix()
            if not path.startswith("../") and path in files:
                return path
    return None


def read_tree(root: Path, path: str) -> ast.Module | None:
    """The module at `path` parsed (None: unreadable or not Python)."""
    try:
        return ast.parse(source_encoding.read(root / path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None


def top_level_names(tree: ast.Module) -> dict[str, str]:
    """Top-level name -> "def" (a function or class) or "constant" (assigned)."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = "def"
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names.setdefault(name.id, "constant")
    return names


def names_in(source: str, kind: str | None = None) -> list[str]:
    """The top-level names of a module's text (`kind`: only "def" or "constant" ones;
    none when it does not parse)."""
    try:
        names = top_level_names(ast.parse(source))
    except (SyntaxError, ValueError):
        return []
    return [name for name, k in names.items() if kind is None or k == kind]
