"""Reading a task: which files it references with `@path`, which names it mentions."""

from __future__ import annotations

import re
from collections.abc import Iterable

# `@path` at the start or after whitespace/punctuation (so e-mail addresses don't match).
_REF = re.compile(r"(?:(?<=^)|(?<=[\s(\[,;:\"']))@([\w./\\-]+[\w/-])")
_WORD = re.compile(r"[A-Za-z_][\w.]*")
_PATHLIKE = re.compile(r"@?[\w./-]+\.(?:py|txt|md|json|ya?ml|toml|cfg|ini|csv)\b")
_FILE = re.compile(r"(?<![\w@/.-])([\w./-]+\.\w+)\b")


def file_refs(task: str) -> list[str]:
    """The `@file` references in `task`, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _REF.finditer(task):
        seen.setdefault(match.group(1).replace("\\", "/"), None)
    return list(seen)


def mentioned(task: str, names: Iterable[str]) -> list[str]:
    """The `names` (functions, classes, `Class.method`) that `task` mentions as words,
    in the order given: `digit_sum`, `digit_sum()` and `Stack.push` count; `sum` inside
    `digit_sum` does not."""
    words = set()
    prose = _PATHLIKE.sub(" ", task)  # `main.py` names a file, not the function main
    for match in _WORD.finditer(prose):
        word = match.group(0).rstrip(".")
        words.add(word)
        words.update(word.split("."))
    return [name for name in names if name in words]


def file_mentions(task: str) -> list[str]:
    """File names written in the task without `@` (`in utils.py`, `python main.py`), in
    order, without duplicates; whether they exist is for the caller to check."""
    seen: dict[str, None] = {}
    for match in _FILE.finditer(task):
        seen.setdefault(match.group(1).rstrip("."), None)
    return list(seen)
