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
from typing import Any

from pydantic import ValidationError

from codur.config.agents import unknown_references
from codur.config.clamp import strip_loosened
from codur.config.keys import Key
from codur.config.layers import Layer, env_layers, merge, nested, override_layers, yaml_layer
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
from codur.redaction import remember, url_passwords
from codur.resources import default_config_file


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
    present = project.exists() or project.is_symlink()  # a folder or a broken link: said
    layer = _project_layer(project, recovery, warnings) if present else None
    if layer is not None:
        confined: tuple[Path, ...] = ()
        beyond = strip_user_only(layer.values)
        if not is_trusted(project, trust_store):
            if project.is_symlink():
                warnings.append(f"{project} is a link: only a folder's own file is trusted")
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
                allow = (
                    "copy the file into the folder, then: codur trust"
                    if project.is_symlink()
                    else f"codur trust -C {workdir}"
                )
                warnings.append(
                    f"{project} is not trusted, so it may not set {', '.join(ignored)} "
                    f"(ignored; to allow them: {allow})"
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
            given.append(Layer(label, nested(tuple(key.split(".")), value)))
    layers += [_with_paths(layer, workdir) for layer in given]
    merged, origins = merge(layers)
    # URL passwords are masked in logs and `config show`; not an untrusted folder file's,
    # whose "password" could be a line of code to mask out of the diff the user reviews
    trusted = [x for x in layers if not (x is layer and confined)]
    remember(url_passwords(" ".join(_strings([x.values for x in trusted]))))
    try:
        config = CodurConfig.model_validate(merged)
    except ValidationError as exc:
        problem = _describe(exc, origins)
        if not recovery or layer is None:
            raise ConfigError(problem) from None
        layers = [x for x in layers if x.label != layer.label]  # the folder's file at fault?
        merged, origins = merge(layers)
        try:
            config = CodurConfig.model_validate(merged)
        except ValidationError:  # not (only) it: the error as it was
            raise ConfigError(problem) from None
        warnings.append(f"{problem} (the whole of {project} is left out for this command)")
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


def _strings(value: Any) -> list[str]:
    """Every string in a config's values (its keys aside)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _project_layer(project: Path, recovery: bool, warnings: list[str]) -> Layer | None:
    """The folder's codur.yaml as a layer; None, with a warning, when it is no valid YAML
    and the command only looks back at or puts back runs (`recovery`): a half-typed
    codur.yaml never stands between the user and `codur undo`."""
    try:
        return yaml_layer(project)
    except ConfigError as exc:
        if not recovery:
            raise
        warnings.append(f"{exc} (left out for this command)")
        return None


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
