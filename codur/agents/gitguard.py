"""The `.git` entries a CLI agent must not make or change (a hook or a config there runs
later, unconfined, the next time git runs in that folder).

The workspace's `.git` is kept read-only while a CLI agent runs (`CliAgent.sandbox`), but
a workspace without one, or a subfolder, is writable, and the workspace compare
(`codur.agents.changes`) skips `.git`. So the entries `.git` in the workspace and in its
immediate subfolders are recorded (lstat: kind, device, inode; for a file or link also
size, time and target) before the CLI runs and compared after: one that is new or
changed is removed and fails the attempt.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from codur.sandbox.repository import GIT

Entries = dict[str, tuple[object, ...]]


def entries(root: Path) -> Entries:
    """{path relative to `root`: its identity} of `root/.git` and `root/*/.git`."""
    candidates = [root / GIT]
    # not codur.tools.walk: it skips `.git`, the very entries looked at here
    try:
        children = list(root.iterdir())
    except OSError:
        children = []
    candidates += [c / GIT for c in children if c.name != GIT and _is_folder(c)]
    found: Entries = {}
    for path in candidates:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        found[path.relative_to(root).as_posix()] = _identity(path, info)
    return found


def nested(root: Path) -> list[Path]:
    """The `.git` folders (not links) of `root`'s immediate subfolders: nested
    repositories, kept read-only like the workspace's own."""
    return [root / n for n in entries(root) if n != GIT and _is_folder(root / n)]


def undo_planted(root: Path, before: Entries, reference: str) -> str | None:
    """Remove the `.git` entries made or changed since `before`; why the attempt failed
    (None: none was)."""
    after = entries(root)
    planted = sorted(name for name, identity in after.items() if before.get(name) != identity)
    if not planted:
        return None
    for name in planted:
        path = root / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    shown = ", ".join(planted)
    return (
        f"{reference} made or changed {shown} (git would run what is planted there outside "
        "the sandbox); removed"
    )


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _identity(path: Path, info: os.stat_result) -> tuple[object, ...]:
    kind = stat.S_IFMT(info.st_mode)
    identity: tuple[object, ...] = (kind, info.st_dev, info.st_ino)
    if stat.S_ISDIR(info.st_mode):  # its time changes whenever git writes in it
        return identity
    target = os.readlink(path) if stat.S_ISLNK(info.st_mode) else ""
    return (*identity, info.st_size, info.st_mtime_ns, target)
