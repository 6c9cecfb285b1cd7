"""Reading a task: which files it references with `@path`."""

from __future__ import annotations

import re

# `@path` at the start or after whitespace/punctuation (so e-mail addresses don't match).
_REF = re.compile(r"(?:(?<=^)|(?<=[\s(\[,;:\"']))@([\w./\\-]+[\w/-])")


def file_refs(task: str) -> list[str]:
    """The `@file` references in `task`, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _REF.finditer(task):
        seen.setdefault(match.group(1).replace("\\", "/"), None)
    return list(seen)
