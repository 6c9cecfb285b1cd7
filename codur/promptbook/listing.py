"""What `codur prompts list` and `codur prompts show` print: the prompts as table rows,
and each prompt rendered with its example values under a line saying where it comes
from."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from codur.errors import UsageError
from codur.promptbook.book import Prompt, PromptBook
from codur.promptbook.template import braces

COLUMNS = ["prompt", "source", "required placeholders", "what it is"]


def source(prompt: Prompt, root: Path) -> str:
    """`built-in`, or the custom prompt's file (relative to `root` when inside it)."""
    if prompt.source is None:
        return "built-in"
    path = Path(prompt.source)
    return str(path.relative_to(root)) if path.is_relative_to(root) else prompt.source


def rows(book: PromptBook, root: Path) -> list[list[str]]:
    return [
        [name, source(p, root), braces(p.spec.required) or "-", p.spec.description]
        for name, p in ((name, book.get(name)) for name in book.names())
    ]


def heading(prompt: Prompt, root: Path) -> str:
    """`==> planner: built-in prompts/plan.md <==`, or the custom file (and whether it
    is plain text, its data appended)."""
    if prompt.source is None:
        where = f"built-in prompts/{prompt.spec.file}"
    else:
        appended = prompt.template.plain and prompt.spec.placeholders
        plain = ", plain text: its data is appended" if appended else ""
        where = f"custom {source(prompt, root)}{plain}"
    return f"==> {prompt.spec.name}: {where} <=="


def shown(book: PromptBook, names: list[str], root: Path) -> str:
    """Each prompt of `names` rendered with its example values, under its heading."""
    return "\n\n".join(
        f"{heading(book.get(name), root)}\n{book.example(name).rstrip()}" for name in names
    )


def save(path: Path, text: str) -> None:
    """Write `text` to the file `path` atomically: the old file whole, or the new one;
    UsageError when it cannot be written (no such folder, no permission)."""
    if path.is_dir():
        raise UsageError(f"{path}: a folder; name a file to write")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".codur-tmp", dir=path.parent)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{path}: cannot write ({exc.strerror or exc})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
