"""Undoing the run's changes to one file: `restore_file`, from the run's start snapshot.

Programs (and the model's shell commands) cannot write `.git`, so `git checkout -- FILE`
and `git stash` fail there; this is how the model takes back a change that went wrong.
"""

from __future__ import annotations

from codur.tools.context import Ctx, ToolError
from codur.tools.registry import TaskType, register_tool
from codur.undo.store import SnapshotError


@register_tool(TaskType.FILE_OPERATION, writes=True)
def restore_file(ctx: Ctx, path: str) -> str:
    """Put a file back as it was when this run started, taking back every change made to
    it since (by any tool or program); a file created in this run is deleted. Use this,
    not `git checkout` or `git stash`, which cannot write .git here.

    Args:
        path: File path, relative to the workspace root.
    """
    snapshot = ctx.snapshot() if ctx.snapshot is not None else None
    if snapshot is None or snapshot.ws.root != ctx.ws.root:  # not a scratch copy's
        raise ToolError("this run keeps no snapshot of the files, so there is nothing to restore")
    target = ctx.path(path)
    rel = ctx.rel(target)
    if target.is_dir() and not target.is_symlink():
        raise ToolError(f"{rel} is a folder; restore its files one at a time")
    if rel in snapshot.start:
        if snapshot.store.current([rel])[rel] == snapshot.start[rel]:
            return f"{rel} is as it was when the run started; nothing to restore"
        action = f"restore {rel} as it was before the run"
        ctx.changing(target, snapshot.original(rel), action=action)
    elif snapshot.made(rel, created_only=True) == "created":
        ctx.changing(target, action=f"delete {rel}, created in this run", destructive=True)
    try:  # a path neither in the snapshot nor created in the run: the reason why not
        done = snapshot.restore(rel)
    except SnapshotError as exc:
        raise ToolError(str(exc)) from None
    return (
        f"Restored {rel} as it was before the run"
        if done == "restored"
        else f"Deleted {rel}, created in this run"
    )
