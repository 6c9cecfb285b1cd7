"""The layered config loader, recording where every value came from.

Precedence, later wins: built-in configs/default.yaml < user file (platformdirs) <
project ./codur.yaml < --config FILE < CODUR_* environment variables < -o key.path=value.
Environment variables nest with a double underscore: CODUR_RUNTIME__MAX_ITERATIONS=3;
a CODUR_* variable that names no config key (CODUR_VENV, read by .ci/bootstrap.py) gets a
warning and is ignored. The project file's protected keys count only once the user
trusted it (`codur.config.trust`), and so do an agent entry it adds or retypes that
would start a program, a model profile it adds, and a limit it loosens
(`codur.config.clamp`); the keys that act beyond the folder (`trust.USER_ONLY`) never
count in it, trusted or not. A value naming a profile or an agent that does not exist is a
ConfigError here, before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

import yaml
from pydantic import ValidationError

from codur.config import bounded_yaml
from codur.config.agents import unknown_references
from codur.config.clamp import strip_loosened
from codur.config.prompt_files import check_files, resolve_paths
from codur.config.schema import CodurConfig
from codur.config.trust import (
    is_trusted,
    strip_new_profiles,
    strip_new_programs,
    strip_protected,
    strip_user_only,
)
from codur.errors import ConfigError
from codur.resources import default_config_file

Key = tuple[str, ...]
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


@dataclass
class LoadedConfig:
    """The validated config plus, per leaf key, the layer that set it."""

    config: CodurConfig
    origins: dict[Key, str]
    layers: list[str]
    warnings: list[str] = field(default_factory=list)
    """One line each: settings that were ignored, and why."""

    def origin(self, key: Key) -> str:
        """The layer that set `key` itself, else the schema's built-in default."""
        return self.origins.get(key, "built-in default")

    def nearest_origin(self, key: Key) -> str:
        """The layer that set `key` or its closest parent (for error messages)."""
        for n in range(len(key), 0, -1):
            if key[:n] in self.origins:
                return self.origins[key[:n]]
        return "built-in default"


def user_config_file() -> Path:
    """The per-user config file (XDG on Linux): e.g. ~/.config/codur/config.yaml."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("codur")) / "config.yaml"


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


def _nested(key: Key, value: Any) -> dict[str, Any]:
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
        layers.append(Layer(f"environment variable {name}", _nested(key, value)))
    return layers


_MISSING = object()


def _annotation(key: Key, model: Any = CodurConfig) -> Any:
    """The schema's type at `key` (_MISSING: no such setting or section); under a mapping
    of named entries (profiles, agents, MCP servers) any name is one."""
    from pydantic import BaseModel

    annotation: Any = model
    for part in key:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field_info = annotation.model_fields.get(part)
            if field_info is None:
                return _MISSING
            annotation = field_info.annotation
        elif get_origin(annotation) is dict:
            annotation = get_args(annotation)[1]
        else:
            return _MISSING  # below a plain value
    return annotation


def is_key(key: Key, model: Any = CodurConfig) -> bool:
    """Whether `key` names a setting (or a section) of the schema."""
    return _annotation(key, model) is not _MISSING


def is_section(key: Key) -> bool:
    """Whether `key` names a section of settings (a mapping), not one setting."""
    from pydantic import BaseModel

    annotation = _annotation(key)
    model = isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return model or get_origin(annotation) is dict


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
        layers.append(Layer(f"-o {path.strip()}", _nested(key, value)))
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


def load_config(
    workdir: Path,
    config_file: Path | None = None,
    overrides: list[str] | None = None,
    environ: Mapping[str, str] | None = None,
    user_file: Path | None = None,
    flags: dict[str, tuple[str, Any]] | None = None,
    trust_store: Path | None = None,
    recovery: bool = False,
) -> LoadedConfig:
    """Build the effective config for a run in `workdir`; ConfigError on any bad input.

    `flags` maps a command-line flag (its label) to (key.path, value); they apply last.
    `recovery`: for the commands that look back at or put back runs (undo, diff, trace),
    a value naming an unknown agent or profile is a warning, not an error.
    """
    environ = os.environ if environ is None else environ
    warnings: list[str] = []
    layers = [yaml_layer(default_config_file(), "built-in configs/default.yaml")]
    user_file = user_file or user_config_file()
    if user_file.is_file():
        layers.append(_with_paths(yaml_layer(user_file), user_file.resolve().parent))
    project = workdir / "codur.yaml"
    if project.is_file():
        layer = yaml_layer(project)
        confined: tuple[Path, ...] = ()
        beyond = strip_user_only(layer.values)
        if not is_trusted(project, trust_store):
            confined = (workdir, user_file.parent)
            below = merge(layers)[0]  # the built-in and user config
            ignored = sorted(
                beyond
                + strip_new_programs(layer.values, below)
                + strip_new_profiles(layer.values, below)
                + strip_protected(layer.values)
                + strip_loosened(layer.values, below)
            )
            if ignored:
                warnings.append(
                    f"{project} is not trusted, so it may not set {', '.join(ignored)} "
                    f"(ignored; to allow them: codur trust -C {workdir})"
                )
        elif beyond:
            warnings.append(
                f"{project} may not set {', '.join(beyond)}, trusted or not: they act on "
                f"other folders too; set them in {user_file} (ignored)"
            )
        hint = f" (to allow others: codur trust -C {workdir})"
        layers.append(_with_paths(layer, workdir, confined, hint))
    if config_file is not None:
        layers.append(_with_paths(yaml_layer(config_file), config_file.resolve().parent))
    given = env_layers(environ, warnings) + override_layers(overrides or [])
    for label, (key, value) in (flags or {}).items():
        if value is not None:
            given.append(Layer(label, _nested(tuple(key.split(".")), value)))
    layers += [_with_paths(layer, workdir) for layer in given]
    merged, origins = merge(layers)
    try:
        config = CodurConfig.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, origins)) from None
    loaded = LoadedConfig(config, origins, [layer.label for layer in layers], warnings)
    unknown = unknown_references(config)
    if unknown is not None:  # a value naming an agent or a profile that does not exist
        key, what = unknown
        problem = f"{loaded.nearest_origin(key)}: key '{'.'.join(key)}': {what}"
        if not recovery:
            raise ConfigError(problem)
        warnings.append(problem)
    check_files(config.prompts, loaded.nearest_origin)
    return loaded


def _with_paths(layer: Layer, base: Path, inside: tuple[Path, ...] = (), hint: str = "") -> Layer:
    """`layer` with its prompt file paths made absolute from `base` (`prompt_files`)."""
    resolve_paths(layer.values, base, layer.where, inside, hint)
    return layer


def _describe(exc: ValidationError, origins: dict[Key, str]) -> str:
    """One line: where, which key, what is wrong (first error; count of the rest)."""
    err = exc.errors()[0]
    key = tuple(str(p) for p in err["loc"])
    where = LoadedConfig(CodurConfig.model_construct(), origins, []).nearest_origin(key)
    if err["type"] == "extra_forbidden":
        what = "unknown key"
    else:
        what = err["msg"].removeprefix("Value error, ")
        if "input" in err and not isinstance(err["input"], dict | list):
            what += f" (got {err['input']!r})"
    more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: key '{'.'.join(key)}': {what}{more}"
