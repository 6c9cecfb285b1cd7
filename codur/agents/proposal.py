"""A proposal: what one model reply offers, read and admitted but not yet written.

The reply's edits are parsed (any shape: whole files, functions merged by name,
SEARCH/REPLACE), syntax-checked, refused whole where one leaves a name undefined
(`codur.edits.names`) and passed through the edit scope, giving the new text of each
file. A reply cut at the token limit is never read; a reply identical to an earlier one
is marked. The coder writes a proposal; sampling tries several in scratch copies first.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from codur.edits import EditError, check_syntax, parse_edits
from codur.edits.names import why_refused
from codur.edits.parse import paths_named
from codur.errors import EditDeclined, WorkspaceError
from codur.scope import ScopeError
from codur.workspace import in_git_folder

if TYPE_CHECKING:
    from codur.session import Session


@dataclass
class Proposal:
    reply: str
    sources: dict[str, str] = field(default_factory=dict)
    """Path -> the new text of each file the reply changes (only real changes)."""
    error: str | None = None
    """Why the reply is unusable (goes back to the model)."""
    notes: list[str] = field(default_factory=list)
    """Parts left out (an edit outside the scope, a harness change), for the next prompt."""
    truncated: bool = False
    unchanged: list[str] = field(default_factory=list)
    """Files the reply gives exactly as they are now (no edit, but no disagreement)."""
    digest: str = ""
    """Identifies the reply's content, so a repeated reply is recognised."""

    def size(self, originals: dict[str, str]) -> int:
        """Changed lines against `originals` (smaller is a more focused fix)."""
        import difflib

        total = 0
        for path, text in self.sources.items():
            before = originals.get(path, "").splitlines()
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
                None, before, text.splitlines(), autojunk=False
            ).get_opcodes():
                if tag != "equal":
                    total += max(i2 - i1, j2 - j1)
        return total


def digest(text: str) -> str:
    normal = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(normal.encode()).hexdigest()[:16]


COPYING = (
    "your reply began to copy the file as it was shown (its `# ... not shown ...` lines), "
    "so it was stopped and nothing of it was applied; give only the function(s) you "
    "change, each complete"
)
"""Why a reply stopped at `reply_shape.COPIED` is not applied."""


def copying(text: str) -> Proposal:
    """The proposal of a reply stopped as it began to copy a file shown in part whole
    (`reply_shape.COPIED`): nothing of it is applied, as with a reply cut at its limit."""
    return Proposal(text, digest=digest(text), truncated=True, error=COPYING)


def read_reply(
    text: str, files: dict[str, str], edit_format: str, session: Session, truncated: bool
) -> Proposal:
    """The proposal in a reply to a prompt that showed `files`."""
    proposal = Proposal(text, digest=digest(text), truncated=truncated)
    if truncated:
        proposal.error = (
            "your reply was cut off at the length limit before it was complete, so nothing "
            "of it was applied; give only the function(s) you change, each complete"
        )
        return proposal
    files = {**files, **_unseen(text, files, session)}
    try:
        edits = parse_edits(text, files, edit_format)
        for edit in edits:
            check_syntax(edit)
    except EditError as exc:
        proposal.error = str(exc)
        return proposal
    refused = []
    for edit in edits:
        try:
            path, current = _target(edit.path, session)
        except EditError as exc:
            session.bus.emit("scope.refused", path=edit.path, reason=str(exc))
            refused.append(f"{edit.path} was not changed: {exc}")
            continue
        edit = replace(edit, path=path)
        if current == edit.content:
            proposal.unchanged.append(edit.path)
            continue
        if reason := why_refused(path, current, edit.content):
            session.bus.emit("edit.refused", path=path, reason=reason)
            proposal.error = f"nothing of the reply was applied: {reason}"
            proposal.sources.clear()
            return proposal  # its other files may need what this one lacks
        scope = session.scope
        try:
            admitted = scope.admit(edit.path, current, edit.content) if scope else edit.content
        except ScopeError as exc:
            session.bus.emit("scope.refused", path=edit.path, reason=str(exc))
            refused.append(f"{edit.path} was not changed: {exc}")
            continue
        if admitted != edit.content:
            session.bus.emit("scope.kept_harness", path=edit.path, by="coder")
            proposal.notes.append(
                f"only the code under test in {edit.path} was changed; your changes to its "
                "harness (the code that sets up inputs and checks results) were left out"
            )
        proposal.sources[edit.path] = admitted
    proposal.notes += refused
    if refused and not proposal.sources:
        proposal.error = "\n".join(refused)
    return proposal


def _unseen(text: str, files: dict[str, str], session: Session) -> dict[str, str]:
    """The existing files the reply gives edits for that the prompt did not show, by the
    path the reply names them with: their text, so that a function given for one is
    merged into it (not taken for all of it). One Codur may not read is left out (its
    edit is refused when it is checked)."""
    found = {}
    for path in paths_named(text, list(files)):
        if path in files:
            continue
        try:
            _, current = _target(path, session)
        except EditError:
            continue
        if current is not None:
            found[path] = current
    return found


def _target(path: str, session: Session) -> tuple[str, str | None]:
    """The workspace-relative path an edit names, and the file's text (None: new);
    EditError for a path outside the workspace, in git's own folder, a secrets file,
    something that is not a regular file, or a file that is not UTF-8 text."""
    try:
        target = session.ws.resolve(path)
    except WorkspaceError as exc:
        raise EditError(str(exc)) from None
    rel = session.ws.relative(target)
    if in_git_folder(path) or in_git_folder(rel):
        raise EditError("it is in .git, git's own folder, which Codur leaves alone")
    if session.tool_context().is_secret(target) and not session.config.tools.allow_secrets:
        raise EditError("it looks like a secrets file, which Codur leaves alone")
    if target.exists() and not target.is_file():
        raise EditError(f"{rel} is not a regular file")
    if not target.exists():
        return rel, None
    try:
        return rel, session.ws.read_text(rel)
    except WorkspaceError as exc:
        raise EditError(f"{exc}; Codur edits only UTF-8 text files") from None


def write(proposal: Proposal, session: Session) -> tuple[list[str], list[str]]:
    """Write the proposal's files (each approved, recorded and written atomically); the
    paths written, and a line for each edit the user declined (for the model)."""
    written, declined = [], []
    for path, text in proposal.sources.items():
        try:
            session.changes.write(path, text, by="coder")
        except EditDeclined as exc:
            declined.append(str(exc))
            continue
        written.append(path)
    return written, declined
