"""Walking the workspace the way git sees it: .gitignore files (nested ones too) and the
configured `tools.ignore` names are skipped; symlinks are listed but never followed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codur.tools.context import ToolContext


@dataclass(frozen=True)
class Entry:
    path: Path
    rel: str
    """Relative to the workspace root, POSIX form."""
    is_dir: bool
    depth: int
    """1 for the entries directly in the folder walked."""


@dataclass(frozen=True)
class _Rules:
    base: Path
    spec: Any  # pathspec.GitIgnoreSpec

    def decide(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included (`!rule`), None: no rule matches."""
        rel = path.relative_to(self.base).as_posix() + ("/" if is_dir else "")
        return self.spec.check_file(rel).include


def _load_rules(folder: Path) -> _Rules | None:
    import pathspec

    gitignore = folder / ".gitignore"
    if not gitignore.is_file() or gitignore.is_symlink():
        return None
    try:
        lines = gitignore.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None  # unreadable .gitignore: walk as if it were absent
    return _Rules(folder, pathspec.GitIgnoreSpec.from_lines(lines))


def _ignored(rules: list[_Rules], path: Path, is_dir: bool) -> bool:
    for rule in reversed(rules):  # the deepest .gitignore with a matching rule decides
        decision = rule.decide(path, is_dir)
        if decision is not None:
            return decision
    return False


def walk(ctx: ToolContext, start: Path, max_depth: int | None = None) -> Iterator[Entry]:
    """Entries under `start` (a resolved folder), depth first, sorted by name."""
    root = ctx.ws.root if ctx.ws.contains(start) else start
    rules = [r for f in [root, *_between(root, start)] if (r := _load_rules(f))]
    yield from _walk(ctx, start, rules, set(ctx.config.ignore), max_depth, 1)


def _between(root: Path, start: Path) -> list[Path]:
    """The folders from just below `root` down to `start`."""
    parts = start.relative_to(root).parts
    return [root.joinpath(*parts[: n + 1]) for n in range(len(parts))]


def _walk(
    ctx: ToolContext,
    folder: Path,
    rules: list[_Rules],
    ignore: set[str],
    max_depth: int | None,
    depth: int,
) -> Iterator[Entry]:
    try:
        with os.scandir(folder) as it:
            items = sorted(it, key=lambda e: e.name)
    except OSError:
        return  # unreadable folder: nothing to list there
    for item in items:
        if item.name in ignore:
            continue
        path = Path(item.path)
        is_dir = item.is_dir(follow_symlinks=False)
        if _ignored(rules, path, is_dir):
            continue
        yield Entry(path, _rel(ctx, path), is_dir, depth)
        if is_dir and (max_depth is None or depth < max_depth):
            inner = _load_rules(path)
            yield from _walk(
                ctx, path, [*rules, inner] if inner else rules, ignore, max_depth, depth + 1
            )


def _rel(ctx: ToolContext, path: Path) -> str:
    """The link's own path (not its target) relative to the root."""
    try:
        return path.relative_to(ctx.ws.root).as_posix()
    except ValueError:
        return path.as_posix()
