"""Can the tests reach the files a task is about? A conservative, static answer.

A test file reaches a module when its text names the module (an import, `import_module`,
a `python calc.py` command, a fixture path), or names a module that reaches it, and so
on through the folder's own Python files; conftest.py files count as tests (pytest loads
them). Names are whole words, so `calc` is not found in `calculator`. The answer errs
towards "reaches": a test suite is set aside only when no file on any path from the tests
so much as names the target, and then passing tests say nothing about it.
"""

from __future__ import annotations

import re
from pathlib import Path

from codur.verify.target import is_test, python_files

_WORD = re.compile(r"\w+")
MAX_BYTES = 1_000_000
"""A larger file is assumed to name everything (it is not read)."""


def _name(path: str) -> str:
    """The word a module is named by: its stem, or its folder's name for a package."""
    p = Path(path)
    return p.parent.name if p.stem == "__init__" and p.parent.name else p.stem


def _words(root: Path, path: str) -> set[str] | None:
    """The words of a file; None when it is too large or unreadable (names anything)."""
    try:
        if (root / path).stat().st_size > MAX_BYTES:
            return None
        return set(_WORD.findall((root / path).read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return None


def unreached(root: Path, targets: list[str]) -> list[str]:
    """The Python files among `targets` that no test (or conftest.py) can reach."""
    files = sorted(python_files(root))
    wanted = [t for t in targets if t.endswith(".py") and not is_test(t) and t in files]
    modules = [f for f in files if not is_test(f) and Path(f).name != "conftest.py"]
    frontier = [f for f in files if is_test(f) or Path(f).name == "conftest.py"]
    reached: set[str] = set()
    while frontier and not set(wanted) <= reached:
        words = _words(root, frontier.pop())
        for module in modules:
            if module not in reached and (words is None or _name(module) in words):
                reached.add(module)
                frontier.append(module)
    return [t for t in wanted if t not in reached]
