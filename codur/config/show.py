"""`codur config show`: the effective config as YAML-like lines, each with its source."""

from __future__ import annotations

import json
from typing import Any

from codur.config.keys import Key
from codur.config.loader import LoadedConfig


def _leaves(value: Any, prefix: Key) -> list[tuple[Key, Any]]:
    if isinstance(value, dict) and value:
        out: list[tuple[Key, Any]] = []
        for k, v in value.items():
            out += _leaves(v, (*prefix, str(k)))
        return out
    return [(prefix, value)]


def as_json(loaded: LoadedConfig) -> dict[str, Any]:
    """`codur config show --json`: the layers, the config, and each leaf's source."""
    data = loaded.config.model_dump(mode="json")
    sources = {".".join(k): loaded.origin(k) for k, _ in _leaves(data, ())}
    return {"layers": list(loaded.layers), "config": data, "sources": sources}


def render(loaded: LoadedConfig) -> str:
    """`key.path: value  # source` for every leaf, in schema order."""
    data = loaded.config.model_dump(mode="json")
    rows = [(".".join(k), json.dumps(v), loaded.origin(k)) for k, v in _leaves(data, ())]
    width = min(max(len(k) + len(v) for k, v, _ in rows), 70) + 2
    lines = [f"# layers, later wins: {' < '.join(loaded.layers)}"]
    lines += [f"{k}: {v}".ljust(width) + f"# {src}" for k, v, src in rows]
    return "\n".join(lines)
