"""What an agent that edits the files itself (a CLI agent) changed, and holding it to the
run's rules afterwards, since its edits never pass through the write path (`codur.writes.Changes`).

`state(session)` records every file of the workspace (mode, size, modification time)
without reading it, the way snapshots see the workspace (`tools.ignore`, Codur's debug
log and folder left out); `changed(before, after)` names the files created, changed or
deleted in between. `settle(session, paths, by)` then treats each as an edit of the
run: recorded for the run's diff and `codur undo`, announced (`file.write`), and held to
the edit scope: a change the scope refuses (the check's files, a file the task did not
name) is put back as the run found it and a change to a program's harness is left out
(`scope.restored` / `scope.kept_harness`), with a line for the agent's next attempt.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from codur import source_encoding
from codur.scope import ScopeError
from codur.undo.snapshot import excluded

if TYPE_CHECKING:
    from codur.session import Session

FileState = dict[str, tuple[int, int, int]]
"""Workspace-relative POSIX path -> (st_mode, st_size, st_mtime_ns)."""


def state(session: Session) -> FileState:
    """Every file under the workspace (symlinks as links), without reading one."""
    root = session.ws.root
    skip = excluded(session.ws, session.config)
    found: FileState = {}
    # not codur.tools.walk: the snapshot's view (gitignored files included), for an undo
    for folder, dirs, names in os.walk(root):
        rel = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if not skip((rel / d).as_posix())]
        for name in names:
            path = (rel / name).as_posix()
            if skip(path):
                continue
            try:
                st = os.lstat(Path(folder) / name)
            except FileNotFoundError:
                continue  # gone while walking
            found[path] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return found


def changed(before: FileState, after: FileState) -> list[str]:
    """Files created, changed or deleted from `before` to `after`, sorted."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def settle(
    session: Session, before: FileState, after: FileState, by: str
) -> tuple[list[str], list[str]]:
    """Hold the changes `by` made between `before` and `after` to the run's rules; (the
    files it changed that stay changed, a line for each change put back or cut)."""
    kept, notes = [], []
    try:
        for path in changed(before, after):
            session.changes.record(path)
            note, restored = _admit(session, path, path in before, by)
            if note:
                notes.append(note)
            if restored:
                continue
            kept.append(path)
            now = _text(session.ws.root / path)
            if now is not None:
                session.bus.emit("file.write", path=path, lines=len(now.splitlines()), by=by)
    finally:
        session.changes.made()  # what was put back or cut is as Codur left it
    return kept, notes


def _admit(session: Session, path: str, existed: bool, by: str) -> tuple[str | None, bool]:
    """Put back what the edit scope does not allow of `by`'s change to `path` (which
    `existed` before `by` ran, or not): a line saying so (None: the change stands as
    made), and whether the whole change was put back."""
    scope, snapshot = session.scope, session.snapshot
    if scope is None or snapshot is None:
        return None, False
    target = session.ws.root / path
    reason = scope.why_not(path)
    if reason is not None:
        if not _put_back(session, path, existed):
            session.bus.emit("scope.refused", path=path, reason=reason, by=by)
            return f"{path} should not have been changed: {reason}", False
        session.bus.emit("scope.restored", files=[path], reason=reason, by=by)
        return f"{path} was put back as it was: {reason}", True
    original, now = snapshot.original(path), _text(target)
    if original is None or now is None:
        return None, False
    try:
        admitted = scope.admit(path, original, now)
    except ScopeError as exc:
        restored = _put_back(session, path, existed)
        session.bus.emit("scope.restored", files=[path], reason=str(exc), by=by)
        return f"{path} was put back as it was: {exc}", restored
    if admitted == now:
        return None, False
    session.ws.write_text(path, admitted)
    harness = scope.harness(path)
    kept = harness.describe() if harness else "the harness"
    session.bus.emit("scope.kept_harness", path=path, kept=kept, by=by)
    note = (
        f"only the code under test in {path} was changed; the changes to its harness "
        "(the code that sets up inputs and checks results) were put back"
    )
    return note, False


def _put_back(session: Session, path: str, existed: bool) -> bool:
    """`path` as the run found it (its bytes and mode, or absent if `by` created it);
    False when that cannot be done (a file too large to snapshot, a symlink)."""
    assert session.snapshot is not None
    target = session.ws.root / path
    entry = session.snapshot.start.get(path)
    if entry is None:
        if existed:
            return False  # it was there, but not snapshotted: nothing to put back
        if target.is_symlink() or target.is_file():
            target.unlink()
        return True
    if entry.is_link or entry.is_folder:
        return False
    data = session.snapshot.store.read(path, entry)
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.codur-restore")
    temp.write_bytes(data)
    os.chmod(temp, stat.S_IMODE(entry.mode) or 0o644)
    os.replace(temp, target)
    return True


def _text(target: Path) -> str | None:
    """A regular file's UTF-8 text (None: absent, not a regular file, or not text)."""
    try:
        if not stat.S_ISREG(os.lstat(target).st_mode):
            return None
        return source_encoding.read(target)
    except (OSError, UnicodeDecodeError):
        return None
