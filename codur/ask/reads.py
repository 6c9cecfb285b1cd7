"""Which files an answer rests on: the workspace files its tool calls named or returned
(a read_file's path, a search's hits, a grep's matching files, a listing's entries) and
the files it cites. The answer cache (`codur.memory`) keeps their hashes: a change to any
of them makes the cached answer stale."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from codur.errors import WorkspaceError
from codur.workspace import CODUR_DIR, Workspace

PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]+)")
"""Something that looks like a relative file path with an extension (`cfg/loader.py`)."""


def strings(value: Any) -> Iterable[str]:
    """Every string in a tool call's arguments (nested lists and mappings included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def mentioned_files(texts: Iterable[str], ws: Workspace, skip: Iterable[str] = ()) -> set[str]:
    """The workspace files (relative paths) named in `texts`, but Codur's own: those in
    `.codur/` and those in `skip` (the debug log, which every run appends to)."""
    found, skipped = set(), set(skip)
    for text in texts:
        for match in PATH.finditer(text):
            path = match.group(1).removeprefix("./")
            try:
                target = ws.resolve(path)
            except WorkspaceError:
                continue  # not a path of this workspace
            rel = ws.relative(target)
            if target.is_file() and rel not in skipped and rel.split("/")[0] != CODUR_DIR:
                found.add(rel)
    return found
