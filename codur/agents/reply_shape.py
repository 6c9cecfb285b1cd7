"""The shape of the coder's reply: the edit format that costs the fewest tokens for the
code in scope, the reply's token budget, and the stop sequence where the reply has a
natural end.

A reply's cost is the code it must write out. A whole file costs the file; changed
functions cost the functions that change, estimated as the two largest of each file (a
method counts alone: it goes inside its `class` line); SEARCH/REPLACE costs the lines
changed, twice. A model asked for whole files (the embedded one: they are what a small
model writes best) is asked for them only where a file is little more than the functions
that could change in it; in a bigger file, for the changed functions. The budget is what
the format's code can need, grown by half, plus the explanation line and the paths:
past that the model is only copying what it was shown (the reply is then cut, and not
applied).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codur.edits.spans import DEFINITIONS, parse, qualified, span

CHARS_PER_TOKEN = 3
"""A rough count of code characters a token (Qwen and GPT tokenizers on Python)."""
GROWTH = 1.5
"""A fix may write more than the code it replaces."""
PROSE_TOKENS = 160
"""The one-line explanation, the paths and the fences."""
WHOLE_FILE_RATIO = 2.0
"""Whole files are asked for when they cost at most this many times the functions that
could change in them..."""
WHOLE_FILE_SLACK = 300
"""... or at most this many characters (~100 tokens) more."""
CHANGED_UNITS = 2
"""Functions a fix is expected to touch in a file."""
COPIED = "\n# ... line"
"""The start of a top-level line that stands for left-out lines of a file shown in part
(`codur.edits.excerpt`: `# ... lines 12-40 not shown ...`): a reply that reaches one is
copying the file as shown, which the reply format forbids, so the call stops there
(minutes of a small model's time). An indented one (a class shown as the methods that
matter) may be copied: a changed method goes inside its class line."""
ELIDED_START = re.compile(r"^# \.\.\. lines?( \d+(-\d+)?)?$")
"""A reply's last line when the server kept the stop sequence."""
FENCE_END = "```\n\n"
"""The end of a one-block reply: its closing fence and the blank line before the prose
that small models add after the code."""


@dataclass(frozen=True)
class ReplyShape:
    """What the coder asks for and how the call is bounded."""

    edit_format: str
    budget: int
    """max_tokens for the reply."""
    stop: tuple[str, ...] = ()
    """Stop sequences (the server drops the one that matched; `close_fence` restores it)."""


def units(text: str) -> list[int]:
    """Characters of each function a changed-functions reply would give whole: top-level
    functions, methods, classes without methods. Empty for text that is no Python."""
    try:
        tree = parse(text)
    except SyntaxError:
        return []
    lines = text.split("\n")
    sizes = []
    for node in qualified(tree.body).values():
        if isinstance(node, ast.ClassDef) and any(isinstance(n, DEFINITIONS) for n in node.body):
            continue  # its methods count, one by one
        start, end = span(node)
        sizes.append(sum(len(line) + 1 for line in lines[start - 1 : end]))
    return sizes


def changed_size(path: str, text: str) -> int:
    """Characters of the code a changed-functions reply for this file is expected to hold:
    its largest functions; the whole text when it is no Python or has no functions."""
    sizes = sorted(units(text), reverse=True) if path.endswith(".py") else []
    return min(len(text), sum(sizes[:CHANGED_UNITS])) if sizes else len(text)


def choose_format(files: dict[str, str], preferred: str, partial: bool) -> str:
    """The format to ask for: `preferred` (the profile's, or the run's after a cut reply),
    except whole files where they cost much more than the changed functions, and any file
    shown in part (never given whole)."""
    if preferred != "whole_file":
        return preferred
    if partial:
        return "functions"
    whole = sum(len(text) for text in files.values())
    changed = sum(changed_size(path, text) for path, text in files.items())
    small = whole <= WHOLE_FILE_RATIO * changed or whole - changed <= WHOLE_FILE_SLACK
    return "whole_file" if small else "functions"


def reply_budget(files: dict[str, str], edit_format: str) -> int:
    """Tokens a reply in `edit_format` can need for `files` (the files as shown)."""
    if edit_format == "whole_file":
        code = sum(len(text) for text in files.values())
    else:
        code = sum(changed_size(path, text) for path, text in files.items())
        code *= 2 if edit_format == "search_replace" else 1  # SEARCH and REPLACE
    return PROSE_TOKENS + int(code * GROWTH / CHARS_PER_TOKEN)


def stop_sequences(
    files: dict[str, str], edit_format: str, partial: bool, originals: dict[str, str]
) -> tuple[str, ...]:
    """FENCE_END where the reply is one fenced block (one file, the whole of it or its
    changed functions) and the code it copies cannot hold that text; COPIED where a file
    is shown in part (and none of the `originals`, the files' own texts, holds that
    text); else none (several blocks). `files`: the files as shown."""
    if partial:
        return () if any(COPIED in text for text in originals.values()) else (COPIED,)
    if len(files) != 1 or edit_format not in ("whole_file", "functions"):
        return ()
    (text,) = files.values()
    return () if "```" in text or text.startswith("\n") else (FENCE_END,)


def copied_view(reply: str) -> bool:
    """A reply of a call with the COPIED stop that ended inside a code block: it stopped
    where it began to copy a left-out-lines line (or the server kept that line's start)."""
    lines = reply.rstrip("\n").split("\n")
    return _fences(reply) % 2 == 1 or ELIDED_START.match(lines[-1]) is not None


def _fences(reply: str) -> int:
    return sum(line.lstrip().startswith("```") for line in reply.split("\n"))


def close_fence(reply: str) -> str:
    """`reply` with its last code block closed when a stop sequence ended it inside it."""
    if _fences(reply) % 2 == 0:
        return reply
    return reply + ("" if reply.endswith("\n") else "\n") + "```\n"


def block_done(reply: str) -> bool:
    """A one-block reply (one with a stop sequence) cut at its budget after its block was
    closed: only the prose after it was lost, its edit is whole."""
    fences = _fences(reply)
    return fences >= 2 and fences % 2 == 0
