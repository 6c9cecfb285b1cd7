"""pytest's configuration at a folder's root, read the way pytest finds it: pytest.ini,
.pytest.ini, pyproject.toml's [tool.pytest.ini_options], tox.ini's [pytest], setup.cfg's
[tool:pytest], the first that has it. Only the options Codur acts on: `testpaths` (what
the suite collects) and `python_files` (which files are test modules)."""

from __future__ import annotations

import configparser
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

import tomllib

OPTIONS = ("testpaths", "python_files")
DEFAULT_TEST_FILES = ("test_*.py", "*_test.py")


def ini_options(root: Path) -> tuple[str, dict[str, list[str]]] | None:
    """(the file holding pytest's configuration, its OPTIONS as lists of words); None: no
    configuration there."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (root / name).is_file():  # pytest's own file: its configuration even if empty
            return name, _ini(root / name, "pytest")
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
        options = data.get("tool", {}).get("pytest", {}).get("ini_options")
        if isinstance(options, dict):
            return "pyproject.toml", {key: _words(options.get(key, [])) for key in OPTIONS}
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if (root / name).is_file() and section in _sections(root / name):
            return name, _ini(root / name, section)
    return None


def _words(value: object) -> list[str]:
    items = value.split() if isinstance(value, str) else value
    return [str(i) for i in items if isinstance(i, str)] if isinstance(items, list) else []


def _sections(path: Path) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, configparser.Error):
        return configparser.RawConfigParser()  # pytest would stop on it; nothing to take
    return parser


def _ini(path: Path, section: str) -> dict[str, list[str]]:
    parser = _sections(path)
    return {
        key: parser.get(section, key).split() if parser.has_option(section, key) else []
        for key in OPTIONS
    }


def file_patterns(root: Path) -> tuple[str, ...]:
    """The patterns of test module names: the configured `python_files` besides pytest's
    defaults (a file either names is a test's, to protect and to judge by)."""
    found = ini_options(root)
    configured = found[1]["python_files"] if found else []
    return DEFAULT_TEST_FILES + tuple(p for p in configured if p not in DEFAULT_TEST_FILES)


def matches(path: str, patterns: tuple[str, ...]) -> bool:
    """pytest's reading of `python_files`: a pattern without a slash matches the file's
    name, one with a slash the end of its path."""
    posix = PurePosixPath(path)
    return any(posix.match(p) if "/" in p else fnmatch(posix.name, p) for p in patterns if p)
