"""Which project config files the user trusted, like `direnv allow`.

A `./codur.yaml` comes with the folder, so whoever wrote the folder wrote it. Until the
user runs `codur trust` there, the keys in `PROTECTED` are ignored in it (one warning
names them): where the API key is sent, where the log is written, confinement, the
environment programs get, approval, MCP servers and agent CLIs (programs Codur would
start, with what they may see and write) and the tools' safety switches. Trust is per
file and per content: `codur trust` records the file's sha256 in the user config
folder; any change to the file needs a new `codur trust`.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from codur.locking import locked

PROTECTED: tuple[str, ...] = (
    "llm.profiles.*.base_url",
    "llm.profiles.*.api_key_env",
    "agents.configs.*.host",
    "agents.configs.*.command",
    "agents.configs.*.args",
    "agents.configs.*.env_allow",
    "agents.configs.*.writable",
    "log.path",
    "sandbox",
    "approval",
    "mcp_servers",
    "tools.allow_outside_workspace",
    "tools.allow_secrets",
    "tools.secret_patterns",
    "runs.record",
    "runs.replay",
    "prompts",
    "agents.preferences",
)
"""Key paths (`*` is any one name; a section covers everything in it) that an untrusted
project file may not set."""


def store_file() -> Path:
    """The user's record of trusted files: e.g. ~/.config/codur/trusted.json."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("codur")) / "trusted.json"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _load(store: Path) -> dict[str, str]:
    if not store.is_file():
        return {}
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        from codur.errors import ConfigError

        raise ConfigError(
            f"{store}: cannot read the trusted files (remove it to start over)"
        ) from None
    return data if isinstance(data, dict) else {}


def _save(store: Path, data: dict[str, str]) -> None:
    store.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".trusted.", suffix=".codur-tmp", dir=store.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
        os.replace(tmp, store)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def is_trusted(path: Path, store: Path | None = None) -> bool:
    """Whether the user trusted `path` with its current content."""
    recorded = _load(store or store_file()).get(str(path.resolve()))
    return recorded is not None and recorded == digest(path)


def trust(path: Path, store: Path | None = None) -> str:
    """Trust `path` as it is now; its sha256."""
    store = store or store_file()
    with locked(store):
        data = _load(store)
        data[str(path.resolve())] = value = digest(path)
        _save(store, data)
    return value


def revoke(path: Path, store: Path | None = None) -> bool:
    """Forget `path`; whether it was trusted."""
    store = store or store_file()
    with locked(store):
        data = _load(store)
        found = data.pop(str(path.resolve()), None) is not None
        if found:
            _save(store, data)
    return found


def strip_protected(values: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[str]:
    """Remove the PROTECTED keys from a layer's values (in place); their dotted paths."""
    removed = []
    for key in list(values):
        path = (*prefix, str(key))
        if any(_matches(path, pattern.split(".")) for pattern in PROTECTED):
            del values[key]
            removed.append(".".join(path))
        elif isinstance(values[key], dict):
            removed += strip_protected(values[key], path)
    return removed


def _matches(path: tuple[str, ...], pattern: list[str]) -> bool:
    return len(path) == len(pattern) and all(
        fnmatch.fnmatchcase(part, want) for part, want in zip(path, pattern, strict=True)
    )
