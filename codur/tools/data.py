"""Structured data tools: read and write JSON, YAML and INI; set one value at a key path.

Key paths are dotted, with list indices as numbers: `tool.ruff.line-length`,
`servers.0.port` (or `servers[0].port`). Writing YAML or INI drops comments.
"""

from __future__ import annotations

import configparser
import io
import json
import re
from typing import Any

import yaml

from codur.config import bounded_yaml
from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.fs import read_text
from codur.tools.registry import TaskType, register_tool


def split_key_path(key_path: str) -> list[str]:
    parts = re.sub(r"\[(\d+)\]", r".\1", key_path).strip(".").split(".")
    if not key_path.strip() or any(not p for p in parts):
        raise ToolError(f"invalid key path {key_path!r} (use a.b.0.c)")
    return parts


def _step(node: Any, part: str, key_path: str) -> Any:
    if isinstance(node, dict):
        if part not in node:
            keys = ", ".join(map(str, list(node)[:20])) or "none"
            raise ToolError(f"{key_path}: no key {part!r} (keys here: {keys})")
        return node[part]
    if isinstance(node, list):
        if not part.isdigit() or int(part) >= len(node):
            raise ToolError(f"{key_path}: {part!r} is not an index of a list of {len(node)}")
        return node[int(part)]
    raise ToolError(f"{key_path}: cannot go into {part!r} of a {type(node).__name__}")


def get_at(data: Any, key_path: str | None) -> Any:
    """The value at `key_path` (the whole document for None)."""
    if not key_path:
        return data
    for part in split_key_path(key_path):
        data = _step(data, part, key_path)
    return data


def set_at(data: Any, key_path: str, value: Any) -> Any:
    """`data` with `value` put at `key_path`; missing mapping keys are created."""
    parts = split_key_path(key_path)
    if not isinstance(data, dict | list):
        data = {}
    node = data
    for n, part in enumerate(parts):
        last = n == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit() or int(part) > len(node):
                raise ToolError(f"{key_path}: {part!r} is not an index of a list of {len(node)}")
            if int(part) == len(node):
                node.append(value if last else {})
            elif last:
                node[int(part)] = value
            node = node[int(part)]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            elif not isinstance(node.get(part), dict | list):
                node[part] = {}
            node = node[part]
        else:
            raise ToolError(f"{key_path}: cannot go into {part!r} of a {type(node).__name__}")
    return data


# --- the formats ---------------------------------------------------------------------


def _parse(ctx: ToolContext, path: str, kind: str) -> Any:
    target, text = read_text(ctx, path)
    ctx.read_into_context(target)
    try:
        if kind == "json":
            return json.loads(text) if text.strip() else None
        if kind == "yaml":
            return bounded_yaml.safe_load(text)
        parser = configparser.ConfigParser(interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep key case
        parser.read_string(text, source=path)
        return {name: dict(parser[name]) for name in parser.sections()}
    except json.JSONDecodeError as exc:
        raise ToolError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except configparser.Error as exc:
        raise ToolError(f"{path}: invalid INI: {exc}") from None
    except yaml.YAMLError as exc:
        raise ToolError(f"{path}: invalid YAML: {exc}") from None


def _dump(data: Any, kind: str) -> str:
    if kind == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if kind == "yaml":
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ToolError("INI data must be an object of sections, each an object of keys")
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    for name, section in data.items():
        parser[str(name)] = {str(k): _ini_value(v) for k, v in section.items()}
    out = io.StringIO()
    parser.write(out)
    return out.getvalue()


def _ini_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _write(ctx: ToolContext, path: str, data: Any, kind: str) -> str:
    text = _dump(data, kind)
    target = ctx.path(path)
    ctx.write(target, text)
    return f"Wrote {kind.upper()} to {ctx.rel(target)}"


def _kind(path: str) -> str:
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    kinds = {"json": "json", "yaml": "yaml", "yml": "yaml", "ini": "ini", "cfg": "ini"}
    if suffix not in kinds:
        raise ToolError(f"{path}: unknown format (use a .json, .yaml/.yml, .ini or .cfg file)")
    return kinds[suffix]


# --- the tools -----------------------------------------------------------------------


@register_tool(TaskType.STRUCTURED_DATA)
def read_json(ctx: Ctx, path: str, key_path: str | None = None) -> Any:
    """Read a JSON file, or the value at one key path in it.

    Args:
        path: JSON file, relative to the workspace root.
        key_path: Dotted path of the value to return (e.g. `scripts.test`); default all.
    """
    return get_at(_parse(ctx, path, "json"), key_path)


@register_tool(TaskType.STRUCTURED_DATA, TaskType.FILE_OPERATION, writes=True)
def write_json(ctx: Ctx, path: str, data: Any) -> str:
    """Write `data` to a JSON file (indented, UTF-8).

    Args:
        path: JSON file, relative to the workspace root.
        data: The whole document.
    """
    return _write(ctx, path, data, "json")


@register_tool(TaskType.STRUCTURED_DATA)
def read_yaml(ctx: Ctx, path: str, key_path: str | None = None) -> Any:
    """Read a YAML file, or the value at one key path in it.

    Args:
        path: YAML file, relative to the workspace root.
        key_path: Dotted path of the value to return; default the whole document.
    """
    return get_at(_parse(ctx, path, "yaml"), key_path)


@register_tool(TaskType.STRUCTURED_DATA, TaskType.FILE_OPERATION, writes=True)
def write_yaml(ctx: Ctx, path: str, data: Any) -> str:
    """Write `data` to a YAML file (comments in an existing file are not kept).

    Args:
        path: YAML file, relative to the workspace root.
        data: The whole document.
    """
    return _write(ctx, path, data, "yaml")


@register_tool(TaskType.STRUCTURED_DATA)
def read_ini(ctx: Ctx, path: str, section: str | None = None) -> Any:
    """Read an INI/CFG file as {section: {key: value}}, or one section.

    Args:
        path: INI file, relative to the workspace root.
        section: Only this section.
    """
    data = _parse(ctx, path, "ini")
    if section is None:
        return data
    if section not in data:
        raise ToolError(f"{path}: no section {section!r} (sections: {', '.join(data) or 'none'})")
    return data[section]


@register_tool(TaskType.STRUCTURED_DATA, TaskType.FILE_OPERATION, writes=True)
def write_ini(ctx: Ctx, path: str, data: dict[str, dict[str, Any]]) -> str:
    """Write {section: {key: value}} to an INI file (comments are not kept).

    Args:
        path: INI file, relative to the workspace root.
        data: The sections and their keys.
    """
    return _write(ctx, path, data, "ini")


@register_tool(TaskType.STRUCTURED_DATA, TaskType.FILE_OPERATION, writes=True)
def set_value_at_path(ctx: Ctx, path: str, key_path: str, value: Any) -> str:
    """Set one value in a JSON, YAML or INI file, creating missing keys on the way.

    Args:
        path: The file (.json, .yaml/.yml, .ini/.cfg), relative to the workspace root.
        key_path: Dotted path of the value (INI: `section.key`).
        value: The new value.
    """
    kind = _kind(path)
    target = ctx.path(path)
    data = _parse(ctx, path, kind) if target.exists() else {}
    if kind == "ini" and len(split_key_path(key_path)) != 2:
        raise ToolError("INI key paths are section.key")
    return _write(ctx, path, set_at(data, key_path, value), kind)
