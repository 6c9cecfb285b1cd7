"""pytest's configuration at a folder's root, read the way pytest 9 finds it (the first
file that has it): pytest.toml and .pytest.toml ([pytest]), pytest.ini and .pytest.ini,
pyproject.toml ([tool.pytest] or [tool.pytest.ini_options]), tox.ini ([pytest]),
setup.cfg ([tool:pytest]). Only the options Codur acts on: `testpaths` (what the suite
collects), `python_files`, `python_functions` and `python_classes` (what is a test),
`addopts` (`--doctest-modules`: the modules' doctests are tests)."""

from __future__ import annotations

import configparser
import glob
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

import tomllib

OPTIONS = ("testpaths", "python_files", "python_functions", "python_classes", "addopts")
DEFAULT_TEST_FILES = ("test_*.py", "*_test.py")
CONFIG_FILES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml")
CONFIG_FILES += ("tox.ini", "setup.cfg")
"""pytest's configuration files, in the order it looks for them."""

Options = dict[str, list[str]]


def ini_options(root: Path) -> tuple[str, Options] | None:
    """(the file holding pytest's configuration, its OPTIONS as lists of words); None: no
    configuration there."""
    for name in CONFIG_FILES:
        path = root / name
        if path.is_file() and (found := _read(path, name)) is not None:
            return name, found
    return None


def _read(path: Path, name: str) -> Options | None:
    if name in ("pytest.toml", ".pytest.toml"):  # pytest's own files: even if empty
        return _options(_table(_toml(path), "pytest") or {})
    if name in ("pytest.ini", ".pytest.ini"):
        return _ini(path, "pytest") or _options({})
    if name == "pyproject.toml":
        table = _table(_table(_toml(path), "tool"), "pytest")
        if table is None:
            return None
        ini = _table(table, "ini_options")
        native = {k: v for k, v in table.items() if k != "ini_options"}
        return _options(ini) if ini is not None else (_options(native) if native else None)
    return _ini(path, "pytest" if name == "tox.ini" else "tool:pytest")


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # pytest would stop on it; nothing to take


def _table(data: object, key: str) -> dict | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else None


def _options(table: dict) -> Options:
    return {key: _words(table.get(key, [])) for key in OPTIONS}


def _words(value: object) -> list[str]:
    items = value.split() if isinstance(value, str) else value
    return [i for i in items if isinstance(i, str)] if isinstance(items, list) else []


def _ini(path: Path, section: str) -> Options | None:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None  # pytest would stop on it; nothing to take
    if section not in parser:
        return None
    return _options({k: parser.get(section, k) for k in OPTIONS if parser.has_option(section, k)})


def existing(root: Path, testpaths: list[str]) -> list[str]:
    """The testpaths (globs, as pytest reads them) that name files or folders inside."""
    found: list[str] = []
    for pattern in testpaths:
        if PurePosixPath(pattern).is_absolute() or ".." in PurePosixPath(pattern).parts:
            continue
        for match in sorted(glob.glob(pattern, root_dir=root)) or []:
            rel = PurePosixPath(match).as_posix()
            if (root / rel).exists() and rel not in found:
                found.append(rel)
    return found


def matches(path: str, patterns: tuple[str, ...] | list[str]) -> bool:
    """pytest's reading of `python_files`: a pattern without a slash matches the file's
    name, one with a slash the end of its path."""
    posix = PurePosixPath(path)
    return any(posix.match(p) if "/" in p else fnmatch(posix.name, p) for p in patterns if p)
