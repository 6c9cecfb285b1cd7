"""Putting a run's changes back: what undo would do (a plan, checked against the run's end
snapshot for files changed since), and doing it (atomic writes, modes, deletions)."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codur.undo.records import RunRecord
from codur.undo.store import Store
from codur.undo.tree import Tree, changed


@dataclass
class UndoPlan:
    record: RunRecord
    start: Tree
    put_back: list[str] = field(default_factory=list)
    """Files that get their content and mode from before the run (changed or deleted)."""
    remove: list[str] = field(default_factory=list)
    """Files the run created."""
    conflicts: list[str] = field(default_factory=list)
    """Files that changed after the run ended: undo overwrites them only with --force."""
    no_end: bool = False
    """The run has no end snapshot (Codur was killed): every change since it started
    counts as a conflict, since whose it is cannot be told."""

    @property
    def empty(self) -> bool:
        return not (self.put_back or self.remove)


def plan_undo(store: Store, record: RunRecord) -> UndoPlan:
    start = store.tree(record.start)
    plan = UndoPlan(record, start)
    if record.end:
        end = store.tree(record.end)
    else:  # compare with the workspace as it is now
        end = store.take(f"{record.run_id}-now", parent=record.start).tree
        store.done(f"{record.run_id}-now")
        plan.no_end = True
    paths = changed(start, end)
    now = store.current(paths)
    for path in paths:
        entry = now[path]
        if entry is not None and stat.S_ISDIR(entry.mode) and _holds(end, path):
            now[path] = None  # a folder the run left there: as at the end (trees hold files)
        if now[path] != start.get(path) and (now[path] != end.get(path) or plan.no_end):
            plan.conflicts.append(path)
        if path in start and now[path] != start[path]:
            plan.put_back.append(path)
        elif path not in start and now[path] is not None:
            plan.remove.append(path)
    return plan


def _holds(tree: Tree, folder: str) -> bool:
    return any(p.startswith(folder + "/") for p in tree)


def apply_undo(root: Path, store: Store, plan: UndoPlan) -> list[str]:
    """Do the plan: files the run created are removed first (with the folders that held
    only them), then the others are put back. Returns one line per file that could not
    be restored (nothing is left half-written)."""
    problems = []
    before = {str(parent) for p in plan.start for parent in PurePosixPath(p).parents}
    for path in sorted(plan.remove, key=lambda p: (-p.count("/"), p)):
        target = root / path
        try:
            if problem := moved_folder(root, path):
                problems.append(problem)
                continue
            if target.is_dir() and not target.is_symlink():
                problems.append(f"{path}: now a folder; left as it is")
                continue
            target.unlink(missing_ok=True)
            _remove_new_folders(root, path, before)
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
    for path in sorted(plan.put_back):
        try:
            problem = _put_back(root, store, path, plan.start)
        except OSError as exc:
            problem = f"{path}: {exc.strerror or exc}"
        if problem:
            problems.append(problem)
    return problems


def _put_back(root: Path, store: Store, path: str, start: Tree) -> str | None:
    entry = start[path]
    target = root / path
    if problem := moved_folder(root, path):
        return problem
    if target.is_dir() and not target.is_symlink():
        return f"{path}: now a folder; left as it is"
    data = store.read(path, entry)
    target.parent.mkdir(parents=True, exist_ok=True)
    now = target.lstat() if target.is_file() or target.is_symlink() else None
    existing = stat.S_IMODE(now.st_mode) if now and stat.S_ISREG(now.st_mode) else None
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".codur-tmp", dir=target.parent)
    try:
        if entry.is_link:
            os.close(fd)
            os.unlink(tmp)
            os.symlink(os.fsdecode(data), tmp)
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.chmod(tmp, store.mode_for(entry, existing))
        os.replace(tmp, target)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    return None


def moved_folder(root: Path, path: str) -> str | None:
    """Why `path` is left as it is when a folder above it is no longer one (a link now:
    writing or removing through it would reach outside the workspace); None: it is."""
    for parent in reversed(PurePosixPath(path).parents[:-1]):
        folder = root / parent
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            return f"{path}: {parent} is no longer a folder; left as it is"
    return None


def _remove_new_folders(root: Path, path: str, before: set[str]) -> None:
    """Remove the empty folders above `path` that held no file before the run."""
    for parent in PurePosixPath(path).parents:
        if str(parent) == "." or str(parent) in before:
            return
        folder = root / parent
        if folder.is_symlink() or not folder.is_dir() or any(folder.iterdir()):
            return
        folder.rmdir()
