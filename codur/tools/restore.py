"""Undoing the run's changes to one file: `restore_file`, from the run's start snapshot.

Programs (and the model's shell commands) cannot write `.git`, so `git checkout -- FILE`
and `git stash` fail there; this is how the model takes back a change that went wrong.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.registry import TaskType, register_tool
from codur.undo.store import SnapshotError
from codur.workspace import in_git_folder


@register_tool(TaskType.FILE_OPERATION, writes=True)
def restore_file(ctx: Ctx, path: str) -> str:
    """Put a file back as it was when this run started, taking back every change made to
    it since (by any tool or program); a file this run's tools created is deleted. Use
    this, not `git checkout` or `git stash`, which cannot write .git here.

    Args:
        path: File path, relative to the workspace root.
    """
    snapshot = ctx.changes.snapshot
    if snapshot is None or snapshot.ws.root != ctx.ws.root:  # not a scratch copy's
        raise ToolError("this run keeps no snapshot of the files, so there is nothing to restore")
    target, rel = _itself(ctx, path)
    if target.is_dir() and not target.is_symlink():
        raise ToolError(f"{rel} is a folder; restore its files one at a time")
    entry = snapshot.start.get(rel)
    if entry is not None:
        if snapshot.store.current([rel])[rel] == entry:
            return f"{rel} is as it was when the run started; nothing to restore"
        text = None if entry.is_link else snapshot.original(rel)  # shown as a diff
        ctx.changing(target, text, action=f"restore {rel} as it was before the run")
    elif snapshot.saved.get(rel) is False and os.path.lexists(target):
        ctx.changing(target, action=f"delete {rel}, created in this run", destructive=True)
    elif snapshot.saved.get(rel) is False:
        return f"{rel} was created in this run and is already gone; nothing to restore"
    try:  # anything else: the reason it cannot be restored
        done = snapshot.restore(rel)
    except SnapshotError as exc:
        raise ToolError(str(exc)) from None
    if done == "restored":
        return f"Restored {rel} as it was before the run"
    return f"Deleted {rel}, created in this run"


def _itself(ctx: ToolContext, path: str) -> tuple[Path, str]:
    """`path` in the workspace, a symbolic link itself rather than where it leads, and
    its workspace-relative form; the folder it is in is checked like any tool path, the
    name against .git and secrets."""
    pure = PurePosixPath(path)
    if pure.name in ("", ".", ".."):
        raise ToolError(f"{path} names no file")
    folder = ctx.path(str(pure.parent))
    rel = PurePosixPath(ctx.rel(folder), pure.name).as_posix()
    if in_git_folder(rel):
        raise ToolError(f"{path} is in .git, git's own folder; tools leave it alone")
    if not ctx.config.allow_secrets and ctx.is_secret(folder / pure.name):
        raise ToolError(f"{path} looks like a secrets file; tools leave it alone")
    return folder / pure.name, rel
