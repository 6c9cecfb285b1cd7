"""Which files of a challenge's working copy the agent may change.

A challenge's `editable` globs say it; unset, the default is the files the prompt names with
`@path` (or every file when it names none), minus the oracle: what the judge compares with
(the expected-output file, pytest's test files, the hidden `judge/` folder, and what
pytest loads besides the tests: `conftest.py`, its configuration files, site hooks,
plugins and the tests' helper modules, as in `codur.scope.support`). Run artefacts (the
debug log, bytecode, caches) are not files of the project at all. A glob matches a path
when it matches the path or one of its folders, so `src` and `src/**` both cover
everything under `src/`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from codur.challenges.spec import HIDDEN, Challenge
from codur.scope.support import LOADED_BY_NAME, helpers, plugins
from codur.task import file_refs

ORACLE = (
    "**/test_*.py",
    "**/*_test.py",
    "judge",
    *(f"**/{name}" for name in LOADED_BY_NAME),
    "**/*.pth",
)
"""Globs of the oracle besides the expected-output file and the tests' helpers: pytest's
test files (its default discovery rules), the hidden judge folder, and the files pytest
or Python's start-up load by name (`conftest.py`, `pytest.ini`, `sitecustomize.py`...)."""
ARTEFACT_DIRS = frozenset({"__pycache__", ".pytest_cache", ".codur"})
"""Folders a run leaves behind (bytecode, pytest's cache, Codur's state), anywhere."""
ARTEFACT_SUFFIXES = (".pyc",)
"""Files a run leaves behind by their name's ending."""


def clean_path(path: str) -> str:
    """A workspace-relative path as compared: forward slashes, no leading `./`."""
    text = path.replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text.rstrip("/")


_GLOB = re.compile(r"\*\*/|\*\*|\*|\?|[^*?]+")
_GLOB_REGEX = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}


def glob_regex(pattern: str) -> re.Pattern[str]:
    """`*` and `?` stay inside one folder name; `**` spans folders (`**/` also none)."""
    parts = _GLOB.findall(clean_path(pattern))
    return re.compile("".join(_GLOB_REGEX.get(part, re.escape(part)) for part in parts))


def _matches(patterns: tuple[re.Pattern[str], ...], rel: str) -> bool:
    """Does a pattern match `rel` or one of the folders it is in?"""
    path = PurePosixPath(rel)
    candidates = [rel, *(p.as_posix() for p in path.parents if p.as_posix() != ".")]
    return any(p.fullmatch(c) for p in patterns for c in candidates)


@dataclass(frozen=True)
class EditScope:
    editable: tuple[str, ...] | None
    """Globs of the files the agent may change; None: every file not excluded."""
    excluded: tuple[str, ...]
    """Globs never editable (the oracle, when the scope is the default one)."""
    artefacts: tuple[str, ...]
    """Exact paths a run leaves behind that are not project files (the debug log)."""

    @cached_property
    def _editable(self) -> tuple[re.Pattern[str], ...]:
        return tuple(map(glob_regex, self.editable or ()))

    @cached_property
    def _excluded(self) -> tuple[re.Pattern[str], ...]:
        return tuple(map(glob_regex, self.excluded))

    def may_change(self, rel: str) -> bool:
        rel = clean_path(rel)
        if self.editable is not None and not _matches(self._editable, rel):
            return False
        return not _matches(self._excluded, rel)

    def is_artefact(self, rel: str) -> bool:
        rel = clean_path(rel)
        parts = PurePosixPath(rel).parts
        return (
            rel in self.artefacts
            or any(part in ARTEFACT_DIRS for part in parts)
            or rel.endswith(ARTEFACT_SUFFIXES)
        )


def oracle(challenge: Challenge) -> tuple[str, ...]:
    """Globs of what the judge compares with: never editable unless `editable` says so
    (the tests' helpers and plugins as the challenge folder has them)."""
    expected = challenge.spec.expected
    root = challenge.folder
    # not codur.tools.walk: the judge runs every Python file of the challenge, ignored or not
    files = {  # the challenge's own folder, every Python file: what the judge runs
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if p.is_file() and p.relative_to(root).parts[0] not in HIDDEN
    }
    tests = sorted(f for f in files if any(glob_regex(g).fullmatch(f) for g in ORACLE))
    named = [clean_path(r) for r in file_refs(challenge.prompt)]
    support = helpers(root, tests, files, named) | plugins(root, files)
    return (*ORACLE, *sorted(support), *([clean_path(expected)] if expected else []))


def scope_for(challenge: Challenge, log_path: str | None = None) -> EditScope:
    """The challenge's edit scope; `log_path` is the debug log of the Codur run to judge
    (`log.path`: relative to the working copy unless absolute), an artefact."""
    artefacts: tuple[str, ...] = ()
    if log_path is not None and not Path(log_path).expanduser().is_absolute():
        artefacts = (clean_path(log_path),)
    if challenge.spec.editable is not None:
        return EditScope(tuple(challenge.spec.editable), (), artefacts)
    excluded = oracle(challenge)
    everything = EditScope(None, excluded, ())
    named = tuple(clean_path(r) for r in file_refs(challenge.prompt) if everything.may_change(r))
    return EditScope(named or None, excluded, artefacts)
