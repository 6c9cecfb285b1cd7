"""File tools: read, write, append, delete, copy, move, replace text, list and tree.

Every path goes through `ctx.path` (workspace confinement, secrets policy); writes go
through `Workspace.write_text` (atomic, keeps mode and line endings).
"""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from collections.abc import Iterable
from itertools import islice
from pathlib import Path

from codur import source_encoding
from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.registry import TaskType, register_tool
from codur.tools.walk import walk
from codur.writes import text_or_none

SNIFF = 8192


def existing_file(ctx: ToolContext, path: str) -> Path:
    """The resolved path of an existing regular file, or ToolError."""
    target = ctx.path(path)
    if target.is_dir():
        raise ToolError(f"{path} is a folder, not a file (list it with list_files)")
    if not target.is_file():
        raise ToolError(
            f"{path} is not a regular file" if target.exists() else f"no such file: {path}"
        )
    return target


def read_text(ctx: ToolContext, path: str) -> tuple[Path, str]:
    """An existing text file's path and content (newlines as \\n), or ToolError."""
    target = existing_file(ctx, path)
    with open(target, "rb") as fh:
        if b"\x00" in fh.read(SNIFF):
            raise ToolError(f"{path} is a binary file ({target.stat().st_size} bytes)")
    return target, ctx.ws.read_text(target)


def folder(ctx: ToolContext, path: str) -> Path:
    target = ctx.path(path)
    if not target.is_dir():
        problem = "is a file, not a folder" if target.exists() else "does not exist"
        raise ToolError(f"{path} {problem}")
    return target


def capped(ctx: ToolContext, lines: Iterable[str]) -> list[str]:
    """At most `tools.max_list_entries` lines, with a note when there were more."""
    limit = ctx.config.max_list_entries
    out = list(islice(lines, limit + 1))
    if len(out) > limit:
        out[limit:] = [f"[stopped after {limit} entries; narrow the path or pattern]"]
    return out


@register_tool(TaskType.FILE_OPERATION, TaskType.EXPLANATION)
def read_file(ctx: Ctx, path: str, start_line: int = 1, end_line: int | None = None) -> str:
    """Read a text file, whole or a range of lines.

    Long files are cut at the size cap with a note telling which line to read next.

    Args:
        path: File path, relative to the workspace root.
        start_line: First line to return (1-based).
        end_line: Last line to return (inclusive); default: to the end of the file.
    """
    if start_line < 1 or (end_line is not None and end_line < start_line):
        raise ToolError("need 1 <= start_line <= end_line")
    target = existing_file(ctx, path)
    limit = ctx.config.max_result_chars
    cap = min(ctx.config.max_read_bytes, max(limit - 100, limit // 2))
    out: list[bytes] = []
    size = total = 0
    cut_at: int | None = None
    with open(target, "rb") as fh:
        if b"\x00" in (head := fh.read(SNIFF)):
            raise ToolError(f"{path} is a binary file ({target.stat().st_size} bytes)")
        encoding = source_encoding.of_file(path, head)
        fh.seek(0)
        for total, raw in enumerate(fh, 1):
            if cut_at is None and start_line <= total <= (end_line or total):
                if size + len(raw) > cap:
                    cut_at = total
                else:
                    out.append(raw)
                    size += len(raw)
    try:
        text = b"".join(out).decode(encoding).replace("\r\n", "\n")
    except UnicodeDecodeError:
        raise ToolError(f"{path} is not {source_encoding.label(encoding)} text") from None
    ctx.read_into_context(target)
    if cut_at is not None and not out:
        with open(target, "rb") as fh:
            line = next(islice(fh, cut_at - 1, None))[:cap].decode("utf-8", errors="ignore")
        return f"{line}\n[line {cut_at} is longer than {cap} bytes: cut; file has {total} lines]"
    if cut_at is not None:
        return f"{text}\n[cut at {cap} bytes: file has {total} lines; next start_line={cut_at}]"
    if start_line > total:
        return f"[no lines: {path} has {total} lines]"
    if start_line > 1 or end_line is not None:
        return f"{text}\n[lines {start_line}-{min(end_line or total, total)} of {total}]"
    return text


@register_tool(TaskType.FILE_OPERATION, TaskType.CODE_EDIT, writes=True)
def write_file(ctx: Ctx, path: str, content: str) -> str:
    """Create or overwrite a text file with `content` (folders are created as needed).

    Args:
        path: File path, relative to the workspace root.
        content: The complete new content of the file.
    """
    target = ctx.path(path)
    existed = target.exists()
    written = ctx.write(target, content)
    verb = "Overwrote" if existed else "Created"
    lines = written.count(chr(10)) + bool(written)
    return f"{verb} {ctx.rel(target)} ({lines} lines){_kept(written, content)}"


@register_tool(TaskType.FILE_OPERATION, TaskType.CODE_EDIT, writes=True)
def append_file(ctx: Ctx, path: str, content: str) -> str:
    """Add `content` at the end of a text file (created if missing).

    Args:
        path: File path, relative to the workspace root.
        content: Text to add; include the newline you want at its end.
    """
    target = ctx.path(path)
    before = read_text(ctx, path)[1] if target.exists() else ""
    wanted = before + content
    written = ctx.write(target, wanted)
    return f"Appended {len(content)} characters to {ctx.rel(target)}{_kept(written, wanted)}"


@register_tool(TaskType.FILE_OPERATION, writes=True)
def delete_file(ctx: Ctx, path: str) -> str:
    """Delete a file (needs confirmation).

    Args:
        path: File path, relative to the workspace root.
    """
    target = existing_file(ctx, path)
    ctx.changing(target, action=f"delete {ctx.rel(target)}", destructive=True)
    target.unlink()
    return f"Deleted {ctx.rel(target)}"


def _destination(ctx: ToolContext, source: Path, destination: str) -> Path:
    target = ctx.path(destination)
    if target.is_dir():
        target = ctx.path(os.path.join(destination, source.name))
    if target == source:
        raise ToolError("source and destination are the same file")
    if target.is_dir():
        raise ToolError(f"{ctx.rel(target)} is an existing folder")
    return target


def _kept(written: str, wanted: str) -> str:
    """What the tool's result adds when the edit scope kept a program's harness out of
    the text (`Changes.guard`)."""
    if written == wanted:
        return ""
    return (
        "; only the code under test was changed: the changes to its harness (the code "
        "that sets up inputs and checks results) were left out"
    )


def _action(ctx: ToolContext, verb: str, src: Path, dst: Path) -> str:
    over = " over the existing file" if dst.exists() else ""
    return f"{verb} {ctx.rel(src)} to {ctx.rel(dst)}{over}"


@register_tool(TaskType.FILE_OPERATION, writes=True)
def copy_file(ctx: Ctx, source: str, destination: str) -> str:
    """Copy a file (overwriting an existing destination needs confirmation).

    Args:
        source: The file to copy.
        destination: The new path, or an existing folder to copy into.
    """
    src = existing_file(ctx, source)
    dst = _destination(ctx, src, destination)
    new = text_or_none(src) if dst.is_file() else None
    ctx.changing(dst, new, action=_action(ctx, "copy", src, dst), destructive=dst.exists())
    dst.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".codur-tmp", dir=dst.parent)
    os.close(fd)
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return f"Copied {ctx.rel(src)} to {ctx.rel(dst)}"


@register_tool(TaskType.FILE_OPERATION, writes=True)
def move_file(ctx: Ctx, source: str, destination: str) -> str:
    """Move or rename a file or folder (moving over an existing file needs confirmation).

    Args:
        source: The file or folder to move.
        destination: The new path, or an existing folder to move into.
    """
    src = ctx.path(source)
    if not src.exists():
        raise ToolError(f"no such file or folder: {source}")
    if src == ctx.ws.root:
        raise ToolError("cannot move the workspace itself")
    dst = _destination(ctx, src, destination)
    ctx.changing([src, dst], action=_action(ctx, "move", src, dst), destructive=dst.exists())
    dst.parent.mkdir(parents=True, exist_ok=True)
    os.replace(src, dst)
    return f"Moved {ctx.rel(src)} to {ctx.rel(dst)}"


@register_tool(TaskType.FILE_OPERATION, TaskType.CODE_EDIT, writes=True)
def replace_in_file(ctx: Ctx, path: str, old: str, new: str, replace_all: bool = False) -> str:
    """Replace an exact piece of text in a file.

    Args:
        path: File path, relative to the workspace root.
        old: The exact text to find (give enough lines to make it unique).
        new: The text to put in its place.
        replace_all: Replace every occurrence instead of requiring exactly one.
    """
    target, text = read_text(ctx, path)
    old = old.replace("\r\n", "\n")
    count = text.count(old) if old else 0
    if count == 0:
        first = old.strip().splitlines()[0] if old.strip() else ""
        near = difflib.get_close_matches(first, text.splitlines(), n=1, cutoff=0.6)
        hint = f"; the closest line is {near[0].strip()!r}" if near else ""
        raise ToolError(f"the text to replace was not found in {path}{hint}")
    if count > 1 and not replace_all:
        raise ToolError(f"the text occurs {count} times in {path}: add context or replace_all")
    wanted = text.replace(old, new.replace("\r\n", "\n"))
    written = ctx.write(target, wanted)
    return f"Replaced {count} occurrence(s) in {ctx.rel(target)}{_kept(written, wanted)}"


@register_tool(TaskType.FILE_OPERATION, TaskType.EXPLANATION)
def list_files(ctx: Ctx, path: str = ".", recursive: bool = False) -> list[str]:
    """List the files in a folder (skipping what .gitignore ignores).

    Args:
        path: Folder, relative to the workspace root.
        recursive: Include files in subfolders too.
    """
    entries = walk(ctx, folder(ctx, path), None if recursive else 1)
    return capped(ctx, (e.rel for e in entries if not e.is_dir))


@register_tool(TaskType.FILE_OPERATION, TaskType.EXPLANATION)
def list_dirs(ctx: Ctx, path: str = ".", recursive: bool = False) -> list[str]:
    """List the subfolders of a folder (skipping what .gitignore ignores).

    Args:
        path: Folder, relative to the workspace root.
        recursive: Include nested subfolders too.
    """
    entries = walk(ctx, folder(ctx, path), None if recursive else 1)
    return capped(ctx, (e.rel + "/" for e in entries if e.is_dir))


@register_tool(TaskType.FILE_OPERATION, TaskType.EXPLANATION)
def file_tree(ctx: Ctx, path: str = ".", max_depth: int = 3) -> str:
    """Show the folder tree, indented, skipping what .gitignore ignores.

    Args:
        path: Folder at the top of the tree, relative to the workspace root.
        max_depth: How many folder levels to show.
    """
    if max_depth < 1:
        raise ToolError("max_depth must be at least 1")
    top = folder(ctx, path)
    lines = (
        "  " * (e.depth - 1) + e.path.name + ("/" if e.is_dir else "")
        for e in walk(ctx, top, max_depth)
    )
    return "\n".join([ctx.rel(top) + "/", *("  " + line for line in capped(ctx, lines))])
