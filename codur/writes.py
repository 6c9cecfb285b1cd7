"""`Changes`: the one way Codur changes a user's file, for agent edits and tools alike:
guard (the edit scope may refuse a change, or keep a program's harness out of it; no
Python file is left using a name it did not before leave undefined: codur.edits.names),
approve (the approval mode may ask, showing the diff), record (the run's snapshot notes
the file before it changes) and write (atomically, announced as a `file.write` event).
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from codur import source_encoding
from codur.approval import Action, Gate
from codur.edits.names import why_refused
from codur.errors import EditDeclined, WorkspaceError
from codur.events import EventBus
from codur.scope import EditScope, ScopeError
from codur.undo.diff import text_diff
from codur.workspace import Workspace

if TYPE_CHECKING:
    from codur.undo.snapshot import RunSnapshot


OVERTAKEN = (
    "{path} was changed during the run by someone other than Codur (you, or a program of "
    "yours): Codur did not write over it; an edit must start from the file as it is now"
)
"""Why a write is refused when someone else changed the file since Codur last wrote it
or the run began (`Witness.overtaken`)."""


@dataclass
class Changes:
    """A run's write path. `scope` and `snapshot` are the run's (set by `run_task` before
    anything runs); None: no limits, nothing recorded (a context made by hand)."""

    ws: Workspace
    bus: EventBus
    gate: Gate
    scope: EditScope | None = None
    """What the run may change (decided at its start)."""
    snapshot: RunSnapshot | None = None
    """The workspace before the run, and what Codur changed since."""
    run: Changes | None = None
    """A scratch copy's: the run's own write path, which still says what the run wrote
    and made (a program created in this run asks before it runs, in the copy too)."""

    def guard(
        self, path: str, new: str | None = None, by: str = "", cut: bool = False
    ) -> str | None:
        """The text to write at workspace-relative `path`: `new` itself or, when `cut`
        (the caller writes what is returned), `new` with its changes to a program's
        harness left out (`scope.kept_harness`); `new` None (a removal or a move):
        whether the scope allows the path at all. ScopeError (announced as
        `scope.refused`) when the scope refuses it, or (`edit.refused`) when `new` leaves
        a name undefined."""
        snapshot = self.snapshot
        kept = read_only(self.ws, path) or (snapshot.uncovered(path) if snapshot else None)
        if kept:
            self.bus.emit("scope.refused", path=path, reason=kept)
            raise ScopeError(kept, path)
        if self.scope is None:
            return new
        original = (lambda: snapshot.original(path)) if snapshot is not None else None
        if new is not None and (reason := why_refused(path, self._current(path), new, original)):
            self.bus.emit("edit.refused", path=path, reason=reason)
            raise ScopeError(reason, path)
        try:
            if new is None:
                reason = self.scope.why_not(path)
                if reason is not None:
                    raise ScopeError(reason)
                return None
            old = self._current(path)
            if not cut:
                self.scope.check_write(path, old, new)
                return new
            admitted = self.scope.admit(path, old, new)
        except ScopeError as exc:
            self.bus.emit("scope.refused", path=path, reason=str(exc))
            raise ScopeError(str(exc), path) from None
        if admitted != new:
            harness = self.scope.harness(path)
            kept = harness.describe() if harness else "the harness"
            self.bus.emit("scope.kept_harness", path=path, kept=kept, by=by)
        return admitted

    def approve(
        self,
        what: str,
        target: Path,
        new: str | None,
        destructive: bool,
        gate: Gate | None = None,
        ws: Workspace | None = None,
    ) -> None:
        """Ask the approval mode (`gate`, else the run's) about the change `what` (with
        the diff of `target` to `new` when it is a text write); EditDeclined when the user
        says no. `ws`: the workspace the target is shown relative to (a tool's may reach
        outside, `tools.allow_outside_workspace`)."""
        shown = (ws or self.ws).relative(target)
        detail = ""
        if new is not None:
            detail = lambda: text_diff(shown, text_or_none(target), new)  # noqa: E731
        kind = Action.DESTRUCTIVE if destructive else Action.EDIT
        if not (gate or self.gate).approve(kind, what, detail):
            raise EditDeclined(shown)

    def record(self, path: str) -> None:
        """`path` (workspace-relative) is about to change: the run's snapshot keeps it as
        it was (`made` follows once it is changed)."""
        if self.snapshot is not None:
            self.snapshot.note(path)

    def made(self) -> None:
        """The recorded changes are made: the run knows the files as they are now as its
        own (a later change by someone else is told apart: RunSnapshot.wrote)."""
        if self.snapshot is not None:
            self.snapshot.wrote()

    def prepare(
        self,
        targets: Sequence[Path],
        new: str | None = None,
        *,
        what: str,
        destructive: bool = False,
        by: str = "",
        cut: bool = False,
        gate: Gate | None = None,
        ws: Workspace | None = None,
    ) -> str | None:
        """Guard, approve and record a change of `targets` (absolute; those outside the
        workspace are only approved) to the text `new`, or their removal (`new` None).
        Returns the text to write (`cut`: the harness may be kept, see `guard`). Call
        `made` once the change is made."""
        inside = [self.ws.relative(t) for t in targets if self.ws.contains(t.resolve())]
        admitted = new
        for rel in inside:
            admitted = self.guard(rel, new, by, cut)
        for rel in inside:  # after the scope's refusals, which say more
            if self.snapshot is not None and self.snapshot.overtaken(rel):
                reason = OVERTAKEN.format(path=rel)
                self.bus.emit("edit.refused", path=rel, reason=reason)
                raise ScopeError(reason, rel)
        self.approve(what, targets[0], admitted, destructive, gate, ws)
        for rel in inside:
            self.record(rel)
        return admitted

    def write(
        self,
        path: str | Path,
        text: str,
        by: str,
        gate: Gate | None = None,
        ws: Workspace | None = None,
    ) -> str:
        """Change a file through every step (`by`: the coder, the repair, a tool): the
        text written is announced as `file.write` and returned. `ws`: the workspace
        `path` is resolved in (a tool's may reach outside: `tools.allow_outside_workspace`;
        a path outside is approved, never guarded or recorded)."""
        ws = ws or self.ws
        target = ws.resolve(path)
        rel = ws.relative(target)
        what = f"write {rel}"
        text = self.prepare([target], text, what=what, by=by, cut=True, gate=gate, ws=ws) or ""
        try:
            ws.write_text(rel, text)  # named as the user knows it in any error
        finally:
            self.made()
        self.bus.emit("file.write", path=rel, lines=len(text.splitlines()), by=by)
        return text

    def program(self, folder: Path) -> AbstractContextManager[None]:
        """Around one of the run's programs running in `folder`: what changes in the
        workspace meanwhile is the run's (a scratch copy's programs are not watched)."""
        if self.snapshot is None or folder.resolve() != self.ws.root:
            return nullcontext()
        return self.snapshot.program()

    def written(self) -> list[str]:
        """The paths Codur changed in this run (by edits or tools), sorted."""
        if self.snapshot is None:
            return self.run.written() if self.run is not None else []
        return sorted(self.snapshot.saved)

    def diffs(self) -> list[tuple[str, str]]:
        """(path, unified diff) of each file Codur changed in the run whose text differs
        from before the run (its snapshot's), in path order."""
        found = []
        for path in self.written():
            before = self.snapshot.original(path) if self.snapshot else None
            target = self.ws.resolve(path)
            data = target.read_bytes() if target.is_file() else None
            after = source_encoding.decode(path, data, "replace") if data is not None else None
            if before != after:
                found.append((path, text_diff(path, before, after)))
        return found

    def originals(self, paths: list[str]) -> dict[str, str | None] | None:
        """The text each of `paths` had before the run (None: the run made it); None when
        there is no snapshot to say."""
        if self.snapshot is None:
            return self.run.originals(paths) if self.run is not None else None
        return {p: self.snapshot.original(p) for p in paths}

    def made_in_run(
        self, path: str, created_only: bool = False
    ) -> Literal["created", "changed"] | None:
        """Whether `path` was created or changed during this run, by anyone
        (`created_only`: only whether it was created, which reads no file)."""
        if self.snapshot is None:
            return self.run.made_in_run(path, created_only) if self.run is not None else None
        return self.snapshot.made(path, created_only)

    def _current(self, path: str) -> str | None:
        """The file's text now (None: absent, or not text: no harness to compare)."""
        try:
            return self.ws.read_text(path) if self.ws.resolve(path).is_file() else None
        except WorkspaceError:
            return None


def read_only(ws: Workspace, path: str) -> str | None:
    """Why `path` is not Codur's to change (None: it is): its owner may not write it
    (`chmod a-w`), which a rename would replace anyway, and root would write."""
    try:
        mode = ws.resolve(path).stat().st_mode
    except (OSError, WorkspaceError):
        return None  # absent (made by the run), or not the workspace's: judged elsewhere
    if stat.S_ISREG(mode) and not mode & stat.S_IWUSR:
        return f"{path} is read-only: Codur leaves it as it is (chmod u+w {path} to allow it)"
    return None


def text_or_none(path: Path) -> str | None:
    """A file's text, to show what an edit changes (None: absent, or not text)."""
    try:
        return source_encoding.read(path)
    except (OSError, UnicodeError):
        return None
