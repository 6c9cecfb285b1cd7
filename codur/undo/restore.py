"""Putting a run's changes back: what undo would do (a plan, checked against the run's end
snapshot for files changed since), and doing it (atomic writes, modes, deletions)."""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath

from codur.undo.nofollow import Refused, make_folder, put_file, remove_empty_folder, remove_file
from codur.undo.records import RunRecord
from codur.undo.store import Store
from codur.undo.tree import Tree, changed


@dataclass
class UndoPlan:
    record: RunRecord
    start: Tree
    end: Tree = field(default_factory=dict)
    """The run's end snapshot (or the folder now, for a run without one)."""
    put_back: list[str] = field(default_factory=list)
    """Files that get their content and mode from before the run (changed or deleted)."""
    remove: list[str] = field(default_factory=list)
    """Files the run created."""
    conflicts: list[str] = field(default_factory=list)
    """Files that changed after the run ended: undo overwrites them only with --force."""
    foreign: list[str] = field(default_factory=list)
    """Files someone other than the run changed while it ran (RunRecord.foreign), not
    back as before it: undo overwrites them only with --force."""
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
    plan.end = end
    paths = changed(start, end)
    now = store.current(paths)
    for path in paths:
        entry = now[path]
        if entry is not None and stat.S_ISDIR(entry.mode) and _holds(end, path):
            now[path] = None  # a folder the run left there: as at the end (trees hold files)
        if now[path] != start.get(path) and (now[path] != end.get(path) or plan.no_end):
            plan.conflicts.append(path)
        elif now[path] != start.get(path) and path in record.foreign:
            plan.foreign.append(path)
        if path in start and now[path] != start[path]:
            plan.put_back.append(path)
        elif path not in start and now[path] is not None:
            plan.remove.append(path)
    return plan


def _holds(tree: Tree, folder: str) -> bool:
    return any(p.startswith(folder + "/") for p in tree)


def apply_undo(root: Path, store: Store, plan: UndoPlan) -> dict[str, str]:
    """Do the plan: files the run created are removed first (with the folders that held
    only them), then the others are put back. Returns the files that could not be
    restored, each with a line saying why (nothing is left half-written, nothing written
    or removed through a folder that became a link: `codur.undo.nofollow`)."""
    problems: dict[str, str] = {}
    before = {str(parent) for p in plan.start for parent in PurePosixPath(p).parents}
    before |= {p for p, entry in plan.start.items() if entry.is_folder}
    for path in sorted(plan.remove, key=lambda p: (-p.count("/"), p)):
        try:
            made = plan.end.get(path)
            if made is not None and made.is_folder:
                remove_empty_folder(root, path)  # one holding files now stays
            else:
                remove_file(root, path)
            _remove_new_folders(root, path, before)
        except Refused as exc:
            problems[path] = str(exc)
        except OSError as exc:
            problems[path] = f"{path}: {exc.strerror or exc}"
    contents = store.read_many({p: plan.start[p] for p in plan.put_back})  # all, first
    for path in sorted(plan.put_back):
        entry = plan.start[path]
        try:  # read first: a filter reading it runs before the folders are walked
            if entry.is_folder:
                make_folder(root, path)
                continue
            data = contents[path]
            put_file(root, path, data, entry.is_link, partial(store.mode_for, entry))
        except Refused as exc:
            problems[path] = str(exc)
        except OSError as exc:
            problems[path] = f"{path}: {exc.strerror or exc}"
    return problems


def _remove_new_folders(root: Path, path: str, before: set[str]) -> None:
    """Remove the empty folders above `path` that held no file before the run."""
    for parent in PurePosixPath(path).parents:
        if str(parent) == "." or str(parent) in before:
            return
        if not remove_empty_folder(root, str(parent)):
            return
