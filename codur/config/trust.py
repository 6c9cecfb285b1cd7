"""Which project config files the user trusted, like `direnv allow`.

A `./codur.yaml` comes with the folder, so whoever wrote the folder wrote it. Until the
user runs `codur trust` there, the keys in `PROTECTED` are ignored in it (one warning
names them): where the API key is sent, where the log is written, confinement, the
environment programs get, approval, MCP servers, agent CLIs, the linter and the
interpreter of the checks (programs Codur would start, the checks without asking, with
what they may see and write), the files the checks judge by that a run may change
(`verify.allow_edit`) and the tools' safety switches; nor may it add
an agent that starts a program, or change what an agent is (`strip_new_programs`). Trust
is per file and per content: `codur trust` records the file's sha256 in the user config
folder; any change to the file needs a new `codur trust`.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codur.config.agents import CLI_TYPES
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
    "verify.lint_command",
    "verify.allow_edit",
    "tools.python",
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
    except (OSError, ValueError, RecursionError):  # RecursionError: JSON nested too deep
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


def strip_new_programs(values: dict[str, Any], below: Mapping[str, Any]) -> list[str]:
    """Remove, in place, the entries of `agents.configs` that would make an agent start a
    program the trusted config `below` (the layers under this one, merged) does not: a
    new entry of a CLI type (CLI_TYPES), or one changing the type `below` gives it.
    Their dotted paths (`agents.configs.NAME`: the whole entry is ignored)."""
    entries = _agent_entries(values)
    types = {
        str(name): str(entry.get("type", "llm"))
        for name, entry in _agent_entries(below).items()
        if isinstance(entry, dict)
    }
    removed = []
    for name, entry in list(entries.items()):
        if not isinstance(entry, dict):
            continue  # not an entry: the schema says so
        before = types.get(str(name))
        after = entry.get("type", before or "llm")
        new_cli = before is None and isinstance(after, str) and after in CLI_TYPES
        if new_cli or (before is not None and after != before):
            del entries[name]
            removed.append(f"agents.configs.{name}")
    return removed


def _agent_entries(values: Mapping[str, Any]) -> dict[str, Any]:
    """The `agents.configs` mapping of config `values` ({} when there is none)."""
    agents = values.get("agents")
    entries = agents.get("configs") if isinstance(agents, dict) else None
    return entries if isinstance(entries, dict) else {}


def _matches(path: tuple[str, ...], pattern: list[str]) -> bool:
    return len(path) == len(pattern) and all(
        fnmatch.fnmatchcase(part, want) for part, want in zip(path, pattern, strict=True)
    )
