"""Edit formats: reading a model's reply into file edits, and checking them before writing.

whole_file: the complete new file in a fenced block, the path on the line before it (or in
the fence's info string). search_replace: aider-style SEARCH/REPLACE blocks under a path.
Small models do best with whole files; the profile's `edit_format` chooses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_SEARCH_REPLACE = re.compile(
    r"^<{5,9} SEARCH[ \t]*\n(.*?)^={5,9}[ \t]*\n(.*?)^>{5,9} REPLACE[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_PATH_DECOR = re.compile(r"^[#*`>\s]*(?:file(?:name)?\s*:\s*)?|[*`:\s]*$", re.IGNORECASE)


class EditError(ValueError):
    """An edit that cannot be applied; its message goes back to the model."""


@dataclass(frozen=True)
class Edit:
    path: str
    content: str


def _path_hint(line: str, known: list[str]) -> str | None:
    candidate = _PATH_DECOR.sub("", line.strip())
    for path in known:
        if candidate == path or candidate.endswith("/" + path) or path.endswith("/" + candidate):
            return path
    return candidate if re.fullmatch(r"[\w./-]+\.\w+", candidate) else None


def _strip_echo(body: str, known: list[str]) -> str:
    """Drop a path line and a stray fence opener that small models repeat inside a block."""
    lines = body.split("\n")
    while lines and (lines[0].strip() in known or re.fullmatch(r"```[\w+-]*", lines[0].strip())):
        lines.pop(0)
    return "\n".join(lines)


def parse_whole_files(reply: str, known: list[str]) -> list[Edit]:
    """Fenced blocks mapped to paths: named ones by their label, a lone block to a lone file."""
    edits: dict[str, str] = {}
    unnamed: list[str] = []
    for match in _FENCE.finditer(reply):
        info, raw = match.group(1).strip(), match.group(2)
        body = _strip_echo(raw, known)
        before = reply[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        words = info.split()
        echoed = raw.split("\n", 1)[0].strip()
        path = (
            (_path_hint(words[-1], known) if len(words) > 1 else None)
            or _path_hint(before, known)
            or (echoed if echoed in known else None)
        )
        if path:
            edits[path] = body
        else:
            unnamed.append(body)
    if not edits and len(unnamed) >= 1 and len(known) == 1:
        edits[known[0]] = max(unnamed, key=len)
    return [Edit(p, c) for p, c in edits.items()]


def apply_search_replace(reply: str, files: dict[str, str]) -> list[Edit]:
    """Apply SEARCH/REPLACE blocks to `files` (path -> text); EditError if a search misses."""
    new = dict(files)
    known = list(files)
    changed: set[str] = set()
    for match in _SEARCH_REPLACE.finditer(reply):
        lines = reply[: match.start()].rstrip("\n").split("\n")
        path = next((p for line in reversed(lines[-3:]) if (p := _path_hint(line, known))), None)
        if path is None and len(known) == 1:
            path = known[0]
        if path is None or path not in new:
            raise EditError("a SEARCH/REPLACE block does not name one of the files shown")
        search, replace = match.group(1), match.group(2)
        if search not in new[path]:
            raise EditError(f"SEARCH text not found in {path}; copy it exactly from the file")
        new[path] = new[path].replace(search, replace, 1)
        changed.add(path)
    return [Edit(p, new[p]) for p in known if p in changed]


FRAGMENT_MIN_LINES = 8
FRAGMENT_RATIO = 0.4


def check_not_fragment(edit: Edit, original: str | None) -> None:
    """A "whole file" far shorter than the file it replaces is a fragment (small models
    often send only the function they changed); writing it would delete the rest."""
    if original is None:
        return
    before, after = len(original.splitlines()), len(edit.content.splitlines())
    if before >= FRAGMENT_MIN_LINES and after < before * FRAGMENT_RATIO:
        raise EditError(
            f"the block for {edit.path} has {after} lines but the file has {before}: "
            "give the COMPLETE file, not a fragment"
        )


def parse_edits(reply: str, files: dict[str, str], edit_format: str) -> list[Edit]:
    """The edits in `reply` in the given format (none is an empty list; EditError when a
    block cannot be applied)."""
    if edit_format == "search_replace":
        return apply_search_replace(reply, files)
    edits = [
        _drop_path_comment(e, files.get(e.path)) for e in parse_whole_files(reply, list(files))
    ]
    for edit in edits:
        check_not_fragment(edit, files.get(edit.path))
    return edits


def _drop_path_comment(edit: Edit, original: str | None) -> Edit:
    """A `# main.py` line the model put on top of the file it was shown is an echo of the
    path, not code (unless the file already started with it)."""
    first, _, rest = edit.content.partition("\n")
    named = first.lstrip().startswith("#") and _path_hint(first, [edit.path]) == edit.path
    if named and (original or "").split("\n", 1)[0] != first:
        return Edit(edit.path, rest)
    return edit


def check_syntax(edit: Edit) -> None:
    """Reject a Python edit that does not compile (the error goes back to the model)."""
    if not edit.path.endswith(".py"):
        return
    try:
        compile(edit.content, edit.path, "exec")
    except SyntaxError as exc:
        raise EditError(f"{edit.path}:{exc.lineno}: syntax error: {exc.msg}") from None
