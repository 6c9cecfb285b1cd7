"""Compiled modules in the folder's `__pycache__` folders. Python (and pytest, for the
test modules it rewrites) runs one in place of its source when the stamp inside matches
the source's size and time, and the programs Codur runs never write one
(PYTHONDONTWRITEBYTECODE), so one that appears or changes during a run was planted: a
check would run code no file shows. The run removes it at its end (restore_oracle)."""

from __future__ import annotations

import os
from pathlib import Path

from codur.workspace import SKIP_DIRS

CACHE = "__pycache__"


def stamps(root: Path) -> dict[str, str]:
    """Each `__pycache__/*.pyc` under `root` (workspace-relative) -> "size:mtime:ctime"
    (nanoseconds; a program that rewrites one and puts its size and time back with `utime`
    cannot put its status change time back)."""
    found: dict[str, str] = {}
    # not codur.tools.walk nor project_tree: they skip the __pycache__ folders looked into here
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d == CACHE or d not in SKIP_DIRS and not d.startswith(".")]
        if os.path.basename(folder) != CACHE:
            continue
        for name in names:
            path = Path(folder, name)
            if not name.endswith(".pyc") or not path.is_file():
                continue
            stat = path.stat()  # a link's target: Python reads through it
            stamp = f"{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ctime_ns}"
            if path.is_symlink():
                stamp += f":link {os.readlink(path)}:{path.lstat().st_ctime_ns}"
            found[path.relative_to(root).as_posix()] = stamp
    return found


def planted(root: Path, before: dict[str, str]) -> list[str]:
    """The compiled modules created or changed since `before` was taken (a stamp taken
    before status change times were kept, "size:mtime", is compared on those two)."""
    return sorted(
        p
        for p, stamp in stamps(root).items()
        if (old := before.get(p)) is None
        or old != (stamp if old.count(":") >= 2 else ":".join(stamp.split(":")[:2]))
    )
