"""Reading a task: which files it references with `@path`, which names it mentions."""

from __future__ import annotations

import re
from collections.abc import Iterable

# `@path` at the start or after whitespace/punctuation (so e-mail addresses don't match);
# `@~/x` and `@.` are captured too, to be refused (outside the folder / not a file).
_REF = re.compile(r"(?:(?<=^)|(?<=[\s(\[,;:\"']))@(~?[\w./\\-]+[\w/-]|\.)")
_WORD = re.compile(r"[A-Za-z_][\w.]*")
# Tried only where a run of path characters starts (or at its `@`): from inside a run it
# could not match where the run's start did not, and each try costs the run's length.
_PATHLIKE = re.compile(r"(?:@|(?<![\w./@-]))[\w./-]+\.(?:py|txt|md|json|ya?ml|toml|cfg|ini|csv)\b")
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


def code_mentions(task: str, names: Iterable[str]) -> list[str]:
    """The `names` the task mentions as code, not as an English word: written as
    `name(`, in backticks, next to "function"/"method"/"class", or spelled like an
    identifier (`digit_sum`, `isLeap`, `parse2`). "evaluate" in "expressions evaluate to
    the wrong value" does not name the function `evaluate`; "fix evaluate()" does."""
    prose = _PATHLIKE.sub(" ", task)
    found = []
    for name in mentioned(task, names):
        word = re.escape(name)
        spelled = "_" in name or "." in name or any(c.isdigit() for c in name)
        spelled = spelled or any(c.isupper() for c in name[1:])
        as_code = re.search(
            rf"{word}\s*\(|`{word}`|\b(?:function|method|class|def)\s+`?{word}\b|"
            rf"\b{word}`?\s+(?:function|method|class)\b",
            prose,
        )
        if spelled or as_code:
            found.append(name)
    return found


def file_mentions(task: str) -> list[str]:
    """File names written in the task without `@` (`in utils.py`, `python main.py`), in
    order, without duplicates; whether they exist is for the caller to check."""
    seen: dict[str, None] = {}
    for match in _FILE.finditer(task):
        seen.setdefault(match.group(1).rstrip("."), None)
    return list(seen)


_TEST_ID = re.compile(r"(?<![\w@/.-])([\w./-]+\.py(?:::\w+)+(?:\[[^\]\s]*\])?)")


def named_tests(task: str) -> list[str]:
    """The pytest test ids the task names (`tests/test_x.py::test_y`,
    `tests/test_x.py::TestC::test_y[1]`), in order, once."""
    return list(dict.fromkeys(i.removeprefix("./") for i in _TEST_ID.findall(task)))
