"""What changed in the workspace during a run, whoever changed it (Codur's edits, or the
programs it ran): a stat snapshot at the start, compared at the end."""

from __future__ import annotations

from pathlib import Path

from codur.scope.oracle import walk

Snapshot = dict[str, tuple[int, int]]
"""Workspace-relative path -> (size, mtime in ns)."""


def snapshot(root: Path, ignore: set[str]) -> Snapshot:
    found: Snapshot = {}
    for path in walk(root, ignore):
        try:
            stat = (root / path).stat()
        except OSError:
            continue  # vanished while we looked
        found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


def changed_since(root: Path, before: Snapshot, ignore: set[str], skip: set[str]) -> list[str]:
    """Files created, changed or deleted since `before` (except the paths in `skip`)."""
    after = snapshot(root, ignore)
    paths = set(before) | set(after)
    return sorted(p for p in paths if p not in skip and before.get(p) != after.get(p))
