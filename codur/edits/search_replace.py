"""Aider-style SEARCH/REPLACE blocks under a path, applied to the files shown."""

from __future__ import annotations

import re

from codur.edits.base import Edit, EditError
from codur.edits.fenced import MASK, path_hint

_SEARCH_REPLACE = re.compile(
    r"^<{5,9} SEARCH[ \t]*\n(.*?)^={5,9}[ \t]*\n(.*?)^>{5,9} REPLACE[ \t]*$",
    re.DOTALL | re.MULTILINE,
)


def mask_search_replace(reply: str) -> str:
    """`reply` with each SEARCH/REPLACE block's characters (not its line breaks) masked,
    so that no fence is read inside or around one."""
    return _SEARCH_REPLACE.sub(lambda m: re.sub(r"[^\n]", MASK, m.group(0)), reply)


def _named(reply: str, end: int, known: list[str]) -> str | None:
    """The path on one of the three lines before position `end` of `reply`."""
    lines = reply[:end].rstrip("\n").split("\n")
    return next((p for line in reversed(lines[-3:]) if (p := path_hint(line, known))), None)


def search_replace_paths(reply: str, known: list[str]) -> list[str]:
    """The paths the SEARCH/REPLACE blocks of `reply` name, in order."""
    found = (_named(reply, m.start(), known) for m in _SEARCH_REPLACE.finditer(reply))
    return list(dict.fromkeys(p for p in found if p))


def apply_search_replace(reply: str, files: dict[str, str]) -> list[Edit]:
    """Apply SEARCH/REPLACE blocks to `files` (path -> text); EditError if a search misses."""
    new = dict(files)
    known = list(files)
    changed: set[str] = set()
    for match in _SEARCH_REPLACE.finditer(reply):
        path = _named(reply, match.start(), known)
        if path is None and len(known) == 1:
            path = known[0]
        if path is None or path not in new:
            raise EditError("a SEARCH/REPLACE block does not name one of the files shown")
        search, replace = match.group(1), match.group(2)
        if search not in new[path]:
            raise EditError(f"SEARCH text not found in {path}; copy it exactly from the file")
        new[path] = new[path].replace(search, replace, 1)
        changed.add(path)
    return [Edit(p, new[p], how="search_replace") for p in known if p in changed]
