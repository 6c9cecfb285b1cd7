"""Fenced code blocks in a reply, and the file each one is for.

A block is for the path on the line before it (`main.py`, `**main.py**`, `File: main.py`),
in its info string (```python main.py), echoed as its first line, or in a block of its
own just before it (```\nmain.py\n```); with one file shown, an unnamed block (the
longest, when there are several) is for that file; with several shown, an unnamed block is
for the one file that defines what it gives (`codur.edits.parse`). An empty block is
never an edit.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from codur.edits.whole import parse_block

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_PATH_DECOR = re.compile(r"^[#*`>\s]*(?:file(?:name)?\s*:\s*)?|[*`:\s]*$", re.IGNORECASE)
MASK = "\x00"
"""Replaces the text of SEARCH/REPLACE blocks before fences are read: a fence around one
holds a SEARCH/REPLACE edit, not a file."""


def path_hint(line: str, known: list[str]) -> str | None:
    """The path a line names: one of `known`, anything that looks like a file name, or an
    absolute, `../` or `~` path even without an extension (`/etc/passwd`: a block labelled
    so is for that file, which the edit then refuses, never for the file shown)."""
    candidate = _PATH_DECOR.sub("", line.strip())
    for path in known:
        if candidate == path or candidate.endswith("/" + path) or path.endswith("/" + candidate):
            return path
    if candidate.startswith(("/", "../", "~")) and re.fullmatch(r"[\w./~-]+", candidate):
        return candidate
    return candidate if re.fullmatch(r"[\w./-]+\.\w+", candidate) else None


def _opener(line: str) -> bool:
    return re.fullmatch(r"```[\w+-]*", line.strip()) is not None


def _strip_echo(body: str, known: list[str]) -> str:
    """Drop a path line and a stray fence opener that small models repeat inside a block
    (```python / # pkg/mod.py / ```python / the code: the comment goes too)."""
    lines = body.split("\n")
    while lines and (lines[0].strip() in known or _opener(lines[0])):
        lines.pop(0)
    if len(lines) > 1 and _opener(lines[1]) and path_hint(lines[0], known) in known:
        del lines[:2]
    return "\n".join(lines)


def _echoed(line: str, known: list[str]) -> str | None:
    """The shown file a block's first line names: `main.py`, or with several files shown
    `# pkg/mod.py` (with one, a snippet headed so is no edit of the file: the longest
    unnamed block is)."""
    if line in known:
        return line
    path = path_hint(line, known) if len(known) > 1 and line.startswith("#") else None
    return path if path in known else None


def fenced_blocks(
    reply: str, known: list[str], owner: Callable[[str], str | None] | None = None
) -> list[tuple[str, str]]:
    """(path, body) for each fenced block that names a path, in reply order; if none
    does: with one file known, the longest unnamed block for that file; with several,
    each unnamed block for the file `owner` says it is for (by what it defines)."""
    named: list[tuple[str, str]] = []
    unnamed: list[str] = []
    label: str | None = None  # a block holding only a path names the next block
    for match in _FENCE.finditer(reply):
        info, raw = match.group(1).strip(), match.group(2)
        if MASK in raw:
            continue
        body = _strip_echo(raw, known)
        before = reply[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        words = info.split()
        echoed = raw.split("\n", 1)[0].strip()
        if not body.strip() or (body.strip() == echoed and _echoed(echoed, known)):
            label = (echoed if echoed in known else path_hint(echoed, known)) or label
            continue
        path = (
            (path_hint(words[-1], known) if len(words) > 1 else None)
            or path_hint(before, known)
            or _echoed(echoed, known)
            or label
        )
        label = None
        if path:
            named.append((path, body))
        else:
            unnamed.append(body)
    if not named and unnamed and len(known) == 1:
        return [(known[0], max(unnamed, key=len))]
    if not named and owner is not None:
        return _without_recaps([(p, body) for body in unnamed if (p := owner(body)) is not None])
    return named


def _without_recaps(blocks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`blocks` but those whose definitions a longer block for the same file all gives (a
    recap or an older version of the fix)."""
    named = []
    for path, body in blocks:
        parsed = parse_block(body)
        named.append((path, body, {d.name for d in parsed[1].definitions} if parsed else set()))
    return [
        (path, body)
        for path, body, names in named
        if not any(p == path and len(b) > len(body) and names <= n for p, b, n in named)
    ]


def drop_path_comment(path: str, body: str, original: str | None) -> str:
    """A `# main.py` line the model put on top of the file it was shown is an echo of the
    path, not code (unless the file already started with it)."""
    first, _, rest = body.partition("\n")
    named = first.lstrip().startswith("#") and path_hint(first, [path]) == path
    if named and (original or "").split("\n", 1)[0] != first:
        return rest
    return body
