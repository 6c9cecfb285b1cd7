"""The layers of settings the config loader merges (`codur.config.loader`): one per YAML
file, CODUR_* variable and `-o` flag, each with the line or name a message can point at.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from codur.config import bounded_yaml
from codur.config.keys import Key, is_key, is_section
from codur.errors import ConfigError

ENV_PREFIX = "CODUR_"


@dataclass
class Layer:
    """One source of settings: a label for messages, the values, and key line numbers."""

    label: str
    values: dict[str, Any]
    lines: dict[Key, int] = field(default_factory=dict)

    def where(self, key: Key) -> str:
        """`label:line` for the deepest known line of `key` (or its parents)."""
        for n in range(len(key), 0, -1):
            if key[:n] in self.lines:
                return f"{self.label}:{self.lines[key[:n]]}"
        return self.label


def yaml_layer(path: Path, label: str | None = None) -> Layer:
    """Read one YAML file into a layer, or raise ConfigError naming file and line."""
    label = label or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read config file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: cannot read config file: not UTF-8 ({exc.reason})") from None
    try:
        node = bounded_yaml.compose(text)
        values = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{label}:{mark.line + 1}" if mark else label
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}: invalid YAML: {problem}") from None
    if values is None:
        return Layer(label, {})
    if not isinstance(values, dict):
        raise ConfigError(
            f"{label}:1: config must be a mapping of keys, not {type(values).__name__}"
        )
    lines: dict[Key, int] = {}
    _key_lines(node, (), lines)
    return Layer(label, values, lines)


def _key_lines(node: yaml.Node | None, prefix: Key, out: dict[Key, int]) -> None:
    if not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        key = (*prefix, str(key_node.value))
        out[key] = key_node.start_mark.line + 1
        _key_lines(value_node, key, out)


def _scalar(text: str) -> Any:
    """Parse an env/flag value the way YAML would (`5` -> int, `true` -> bool)."""
    try:
        return yaml.safe_load(text) if text.strip() else text
    except yaml.YAMLError:
        return text


def nested(key: Key, value: Any) -> dict[str, Any]:
    """`{"a": {"b": value}}` for the key ("a", "b")."""
    out: dict[str, Any] = {key[-1]: value}
    for part in reversed(key[:-1]):
        out = {part: out}
    return out


def env_layers(environ: Mapping[str, str], warnings: list[str] | None = None) -> list[Layer]:
    """One layer per CODUR_* variable, so errors name the variable; one that names no
    config key is left out, with a line in `warnings`."""
    layers = []
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX) or name == ENV_PREFIX:
            continue
        key = tuple(p.lower() for p in name[len(ENV_PREFIX) :].split("__"))
        if not all(key) or not is_key(key):
            if warnings is not None:
                warnings.append(f"environment variable {name} is not a Codur setting (ignored)")
            continue
        value = _scalar(environ[name])
        if is_section(key) and not isinstance(value, dict):  # a later layer would hide it
            raise ConfigError(
                f"environment variable {name}: {'.'.join(key)} is a section of settings, "
                f"not one; set a key under it ({name}__KEY)"
            )
        layers.append(Layer(f"environment variable {name}", nested(key, value)))
    return layers


def override_layers(overrides: list[str]) -> list[Layer]:
    """One layer per `-o key.path=value` flag."""
    layers = []
    for item in overrides:
        path, sep, raw = item.partition("=")
        key = tuple(path.strip().split("."))
        if not sep or not all(key):
            raise ConfigError(
                f"-o {item}: expected key.path=value (e.g. -o runtime.max_iterations=3)"
            )
        value = _scalar(raw)
        if is_section(key) and not isinstance(value, dict):  # a later flag would hide it
            raise ConfigError(
                f"-o {item}: {'.'.join(key)} is a section of settings, not one; "
                f"set a key under it (e.g. -o {'.'.join(key)}.KEY=VALUE)"
            )
        layers.append(Layer(f"-o {path.strip()}", nested(key, value)))
    return layers


def merge(layers: list[Layer]) -> tuple[dict[str, Any], dict[Key, str]]:
    """Deep-merge layers in order; record which layer set each leaf."""
    merged: dict[str, Any] = {}
    origins: dict[Key, str] = {}

    def put(target: dict[str, Any], values: Mapping[str, Any], prefix: Key, layer: Layer) -> None:
        for k, v in values.items():
            key = (*prefix, str(k))
            if not (isinstance(v, Mapping) and isinstance(target.get(k), dict)):
                for old in [o for o in origins if o[: len(key)] == key]:
                    del origins[old]
                origins[key] = layer.where(key)
                target[k] = {} if isinstance(v, Mapping) else v
            if isinstance(v, Mapping):
                put(target[k], v, key, layer)

    for layer in layers:
        put(merged, layer.values, (), layer)
    return merged, origins
