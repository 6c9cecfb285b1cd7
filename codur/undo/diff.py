"""What a run changed, as a unified diff: its start snapshot against its end snapshot
(or against the workspace now, for a run Codur did not see to its end)."""

from __future__ import annotations

import difflib

from codur import source_encoding
from codur.undo.records import RunRecord
from codur.undo.store import Store
from codur.undo.tree import Entry, changed


def run_diff(store: Store, record: RunRecord) -> str:
    start = store.tree(record.start)
    if record.end:
        end = store.tree(record.end)
    else:
        end = store.take(f"{record.run_id}-now", parent=record.start).tree
        store.done(f"{record.run_id}-now")
    return "".join(
        _file_diff(store, path, start.get(path), end.get(path)) for path in changed(start, end)
    )


def _file_diff(store: Store, path: str, before: Entry | None, after: Entry | None) -> str:
    head = [f"diff --git a/{path} b/{path}\n"]
    if (before is not None and before.is_folder) or (after is not None and after.is_folder):
        return "".join(head) + f"{_folder(before)} -> {_folder(after)}\n"
    if before is None and after is not None:
        head.append(f"new file mode {after.mode:o}\n")
    elif after is None and before is not None:
        head.append(f"deleted file mode {before.mode:o}\n")
    elif before is not None and after is not None and before.mode != after.mode:
        head += [f"old mode {before.mode:o}\n", f"new mode {after.mode:o}\n"]
    if before is not None and after is not None and before.digest == after.digest:
        return "".join(head)
    old, new = _text(store, path, before), _text(store, path, after)
    if old is None or new is None:
        return "".join(head) + f"Binary files a/{path} and b/{path} differ\n"
    return "".join(head) + text_diff(path, old if before else None, new if after else None)


def _folder(entry: Entry | None) -> str:
    if entry is None:
        return "nothing"
    return "an empty folder" if entry.is_folder else "a file"


def text_diff(path: str, before: str | None, after: str | None) -> str:
    """A unified diff of one file's text (None: the file is absent on that side). As git
    shows them, a line without a final newline is followed by `\\ No newline at end of
    file`, and where the line endings changed (CRLF to LF or back), a carriage return is
    shown as `^M`: otherwise such a change would look like no change at all."""
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        (after or "").splitlines(keepends=True),
        f"a/{path}" if before is not None else "/dev/null",
        f"b/{path}" if after is not None else "/dev/null",
    )
    mark = (before or "").count("\r") != (after or "").count("\r")
    return "".join(_shown(line, mark) for line in lines)


def _shown(line: str, mark_cr: bool) -> str:
    ending = "\n" if line.endswith("\n") else "\n\\ No newline at end of file\n"
    body = line.removesuffix("\n")
    return (body.replace("\r", "^M") if mark_cr else body) + ending


def _text(store: Store, path: str, entry: Entry | None) -> str | None:
    """The text of a file version ("" if absent; None if it is not text: not UTF-8, or
    for a Python file not the encoding it declares)."""
    if entry is None:
        return ""
    data = store.read(path, entry)
    if b"\0" in data[:8192]:
        return None
    try:
        return source_encoding.decode(path, data)
    except UnicodeError:
        return None
