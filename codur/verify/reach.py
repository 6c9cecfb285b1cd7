"""Can the tests reach the files a task is about? A conservative, static answer.

A test file reaches a module when its text names the module (an import, `import_module`,
a `python calc.py` command, a fixture path), or names a module that reaches it, and so
on through the folder's own Python files; conftest.py files count as tests (pytest loads
them), and so do the test files the project's own rules make (`scope.test_modules`).
Names are whole words, so `calc` is not found in `calculator`. The answer errs towards
"reaches": a test suite is set aside only when no file on any path from the tests
so much as names the target, and then passing tests say nothing about it.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Collection
from pathlib import Path

from codur import source_encoding
from codur.scope.test_modules import suite_files
from codur.verify.target import python_files

_WORD = re.compile(r"\w+")
MAX_BYTES = 1_000_000
"""A larger file is assumed to name everything (it is not read)."""


def _name(path: str) -> str:
    """The name a module is called by: its stem, or its folder's for a package's
    `__init__.py` and `__main__.py` (`python -m app` runs `app/__main__.py`)."""
    p = Path(path)
    return p.parent.name if p.stem in ("__init__", "__main__") and p.parent.name else p.stem


def source_text(root: Path, path: str) -> str | None:
    """A Python file's text; None when it is too large or unreadable (it names anything);
    empty for what is no regular file (a FIFO named `x.py` would block the read)."""
    try:
        info = (root / path).stat()
        if not stat.S_ISREG(info.st_mode):
            return ""
        if info.st_size > MAX_BYTES:
            return None
        with open(root / path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError:
        return None
    return None if len(data) > MAX_BYTES else source_encoding.decode(path, data, "replace")


def _spelled(text: str, name: str) -> bool:
    """Whether `text` spells a name that is not one word (`my-tool`, a name with
    combining marks) between non-word characters (`python my-tool.py`)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def unreached(root: Path, targets: list[str]) -> list[str]:
    """The Python files among `targets` that no test (or conftest.py) can reach."""
    files = sorted(python_files(root))
    tests = suite_files(root, files).every
    wanted = [t for t in targets if t.endswith(".py") and t not in tests and t in files]
    reached = reached_modules(root, files, set(wanted), tests)
    return [t for t in wanted if t not in reached]


def reached_modules(
    root: Path, files: list[str], enough: set[str] | None = None, tests: Collection[str] = ()
) -> set[str]:
    """The folder's modules (of `files`) the tests (`tests`; none given: the test files
    among `files`) can reach; the search may stop once `enough` are reached."""
    tests = tests or suite_files(root, files).every
    named: dict[str, list[str]] = {}  # a module's name (one word) -> the modules called so
    spelled: list[tuple[str, str]] = []  # (name, module) for names that are not one word
    for module in (f for f in files if f not in tests):
        name = _name(module)
        if _WORD.fullmatch(name):
            named.setdefault(name, []).append(module)
        else:
            spelled.append((name, module))
    frontier = [f for f in files if f in tests]
    reached: set[str] = set()
    while frontier and not (enough is not None and enough <= reached):
        text = source_text(root, frontier.pop())
        if text is None:  # it may name anything
            found = [m for group in named.values() for m in group] + [m for _, m in spelled]
        else:
            words = set(_WORD.findall(text))
            found = [m for word in words & named.keys() for m in named[word]]
            found += [m for name, m in spelled if name in text and _spelled(text, name)]
        for module in found:
            if module not in reached:
                reached.add(module)
                frontier.append(module)
    return reached
