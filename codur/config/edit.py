"""Removing settings from a YAML config file in place: the rest of the file (comments,
order, layout) stays as it was, and the file is replaced atomically.

Only the removed entries' lines change (a flow mapping, `{a: x, b: y}`, is written
anew). The result is read back and must equal the old settings minus the removed ones;
a file that cannot be edited that way is left alone (ConfigError: edit it by hand).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from codur.config.layers import yaml_layer
from codur.errors import ConfigError


def remove_entries(path: Path, section: str, names: list[str] | None = None) -> dict[str, Any]:
    """Remove `names` (None: all) from the top-level mapping `section` of the YAML file
    `path` (the section itself when nothing is left in it); the entries removed, by
    name (empty: nothing to remove, and the file is untouched)."""
    data = yaml_layer(path).values  # ConfigError naming the file for a broken one
    text = path.read_text(encoding="utf-8")
    root = yaml.compose(text)
    current = data.get(section)
    if not isinstance(current, dict):
        return {}
    removed = {n: v for n, v in current.items() if names is None or n in names}
    if not removed:
        return {}
    kept = {n: v for n, v in current.items() if n not in removed}
    new = _without(text, root, section, set(removed), kept)
    expected = {k: v for k, v in data.items() if k != section}
    if kept:
        expected[section] = kept
    try:
        result = yaml.safe_load(new)
    except yaml.YAMLError:
        result = None
    if (result or {}) != expected:
        raise ConfigError(
            f"{path}: cannot remove {section}.{', '.join(removed)} without rewriting the "
            "file: remove it by hand"
        )
    _replace(path, new)
    return removed


def _lines(start: yaml.Mark, end: yaml.Mark) -> range:
    """The lines from `start` to the node ending at `end` (an end at a line's first
    column belongs to the line before)."""
    last = end.line if end.column > 0 else end.line - 1
    return range(start.line, last + 1)


def _without(text: str, root: Any, section: str, names: set[str], kept: dict) -> str:
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        return text  # the check in remove_entries refuses it
    for key, value in root.value:
        if key.value != section:
            continue
        if not kept:
            return _drop(text, _lines(key.start_mark, value.end_mark))
        if value.flow_style:
            flow = yaml.safe_dump(kept, default_flow_style=True, width=10**6).strip()
            return text[: value.start_mark.index] + flow + text[value.end_mark.index :]
        drop: set[int] = set()
        for entry, entry_value in value.value:
            if entry.value in names:
                drop |= set(_lines(entry.start_mark, entry_value.end_mark))
        return _drop(text, drop)
    return text


def _drop(text: str, lines: range | set[int]) -> str:
    gone = set(lines)
    return "".join(line for n, line in enumerate(text.splitlines(keepends=True)) if n not in gone)


def _replace(path: Path, text: str) -> None:
    """Write `text` to `path` atomically, keeping its permissions."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".codur-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
