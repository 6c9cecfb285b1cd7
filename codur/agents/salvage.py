"""What is left of a reply that ended before it was complete: stopped as it began to copy
a file shown in part (`reply_shape.COPIED`), or cut at its token limit. A small model
often writes the function it changes, complete, and then goes on copying the view, or
writes a whole class until its budget runs out. The complete definitions before the end
are an edit, merged by name like any other, unless the reply cut one short; a block
that would be read as the whole new file (every definition in it, or none in the file)
is not.

Where the limit cut the reply inside a definition, that definition is dropped: the
reply is kept up to the last `def`/`class` line (or its decorators) that closes every
definition before it but classes; a method of a class cut there is merged into the
class, member by member, and the class's other members stay as they are.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from codur.agents.proposal import Proposal, read_reply
from codur.agents.reply_shape import ELIDED_START, close_fence
from codur.edits import EditError, parse_edits
from codur.edits.spans import definitions, parse
from codur.edits.splice import indent_of

if TYPE_CHECKING:
    from codur.session import Session

KEPT_SHARE = 0.8
"""A definition the salvaged edit keeps shorter than this share of its lines now is
taken for one the reply abbreviated (its body, or its end, left out for a `# ... lines`
line), and nothing is salvaged."""
SALVAGED = {
    "copied": (
        "your reply began to copy the file as it was shown (its `# ... not shown ...` "
        "lines) and was stopped there; the complete functions before that were used"
    ),
    "cut": (
        "your reply was cut off at the length limit; the complete functions before the "
        "cut were used, the one it cut was not"
    ),
}
HEADER = re.compile(r"\s*(@|def\s|async\s+def\s|class\s)")
"""A line that starts a definition (or its first decorator)."""


def salvage(
    text: str, files: dict[str, str], edit_format: str, session: Session, cut: bool = False
) -> Proposal | None:
    """The edit in `text` up to its end (None: no change, or a definition cut short).
    `cut`: the token limit ended it (else the copied-view stop)."""
    lines = text.rstrip("\n").split("\n")
    if cut:
        lines = complete_part(lines)
    elif lines and ELIDED_START.match(lines[-1]):  # the server kept the line's start
        lines.pop()
    if not lines:
        return None
    ended = close_fence("\n".join(lines) + "\n")
    try:  # a block read as the whole new file would drop all the file after the stop
        if any(e.how != "merged" for e in parse_edits(ended, files, edit_format)):
            return None
    except EditError:
        return None
    proposal = read_reply(ended, files, edit_format, session, False)
    if proposal.error or not proposal.sources:
        return None
    for path, new in proposal.sources.items():
        old = files.get(path)
        if old is None or _cut_short(old, new):
            return None
    proposal.notes.append(SALVAGED["cut" if cut else "copied"])
    return proposal


def complete_part(lines: list[str]) -> list[str]:
    """`lines` of a reply cut inside its last code block, up to the last definition line
    before which every definition is complete but for classes ([]: none such)."""
    fences = [i for i, line in enumerate(lines) if line.lstrip().startswith("```")]
    if len(fences) % 2 == 0:
        return []  # cut outside any block: nothing of a block was lost
    start = fences[-1] + 1
    block = lines[start:]
    for at in range(len(block) - 1, 0, -1):
        if HEADER.match(block[at]) and _closes(block[:at], len(indent_of(block[at]))):
            return lines[: start + at]
    return []


def _closes(before: list[str], indent: int) -> bool:
    """Whether a definition line at `indent` after `before` leaves open only classes."""
    try:
        tree = parse("\n".join(before))
    except SyntaxError:  # a null byte too, on any Python
        return False
    node: ast.AST = tree
    while children := [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.stmt)]:
        node = max(children, key=lambda n: n.lineno)  # the innermost open statements
        if node.col_offset >= indent:
            return True  # closed by the line, and all inside it
        if not isinstance(node, ast.ClassDef):
            return False
    return True


def _cut_short(old: str, new: str) -> bool:
    """A definition of `old` that `new` drops or keeps shorter than KEPT_SHARE."""
    try:
        before, after = definitions(old), definitions(new)
    except SyntaxError:
        return True
    for name, span in before.items():
        kept = after.get(name)
        if kept is None or (kept.end - kept.start + 1) < KEPT_SHARE * (span.end - span.start + 1):
            return True
    return False
