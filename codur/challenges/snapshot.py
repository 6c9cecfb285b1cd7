"""What a run changed in a working copy: a hash of every file before and after, compared
under the challenge's edit scope. A change outside the scope is a violation that fails the
run, whatever the program prints afterwards."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from codur.challenges.scope import EditScope

Snapshot = dict[str, str]
"""Workspace-relative path (forward slashes) -> sha256 of the file's bytes (of a symlink's
target path for a symlink)."""


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "symlink:" + os.readlink(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(root: Path, scope: EditScope) -> Snapshot:
    """Every file under `root` except run artefacts."""
    found: Snapshot = {}
    # not codur.tools.walk: the judge sees every file, ignored or not, so none is changed unseen
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs.sort()
        for name in sorted(names):
            rel = (here / name).relative_to(root).as_posix()
            if not scope.is_artefact(rel):
                found[rel] = _digest(here / name)
    return found


def violations(before: Snapshot, after: Snapshot, scope: EditScope) -> list[str]:
    """Each file outside the scope that was modified, deleted or created, as one sentence."""
    found = []
    for rel in sorted(before.keys() | after.keys()):
        if before.get(rel) == after.get(rel) or scope.may_change(rel):
            continue
        if rel not in after:
            found.append(f"deleted protected file {rel}")
        elif rel not in before:
            found.append(f"created file {rel} outside the editable files")
        else:
            found.append(f"modified protected file {rel}")
    return found
