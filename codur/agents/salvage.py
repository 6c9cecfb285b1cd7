"""What is left of a reply stopped as it began to copy a file shown in part
(`reply_shape.COPIED`): a small model often writes the function it changes, complete,
and then goes on copying the view. The complete definitions before the stop are an
edit, merged by name like any other, unless the reply cut one short; a block that would
be read as the whole new file (every definition in it, or none in the file) is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codur.agents.proposal import Proposal, read_reply
from codur.agents.reply_shape import ELIDED_START, close_fence
from codur.edits import EditError, parse_edits
from codur.edits.spans import definitions

if TYPE_CHECKING:
    from codur.session import Session

KEPT_SHARE = 0.8
"""A definition the salvaged edit keeps shorter than this share of its lines now is
taken for one the reply abbreviated (its body, or its end, left out for a `# ... lines`
line), and nothing is salvaged."""
SALVAGED = (
    "your reply began to copy the file as it was shown (its `# ... not shown ...` lines) "
    "and was stopped there; the complete functions before that were used"
)


def salvage(
    text: str, files: dict[str, str], edit_format: str, session: Session
) -> Proposal | None:
    """The edit in `text` up to the stop (None: no change, or a definition cut short)."""
    lines = text.rstrip("\n").split("\n")
    if lines and ELIDED_START.match(lines[-1]):  # the server kept the line's start
        lines.pop()
    cut = close_fence("\n".join(lines) + "\n")
    try:  # a block read as the whole new file would drop all the file after the stop
        if any(e.how != "merged" for e in parse_edits(cut, files, edit_format)):
            return None
    except EditError:
        return None
    proposal = read_reply(cut, files, edit_format, session, False)
    if proposal.error or not proposal.sources:
        return None
    for path, new in proposal.sources.items():
        old = files.get(path)
        if old is None or _cut_short(old, new):
            return None
    proposal.notes.append(SALVAGED)
    return proposal


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
