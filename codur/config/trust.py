"""Which project config files the user trusted, like `direnv allow`.

A `./codur.yaml` comes with the folder, so whoever wrote the folder wrote it. Until the
user runs `codur trust` there, the keys in `PROTECTED` are ignored in it (one warning
names them): where the API key is sent, which model and host read the prompt, where the
log is written, confinement, the environment programs get, approval, MCP servers, agent
CLIs, the linter, the test command and the interpreter of the checks (programs Codur
would start, the checks without asking, with what they may see and write), the tools'
safety switches, the files the checks judge by that a run may change
(`verify.allow_edit`), the review of a constant-only fix (`repair.review`,
`repair.review_probes`), what snapshots leave out and how long undo history is kept;
nor may it add an agent that starts a program, or change what an agent is
(`strip_new_programs`), nor add a model profile (`strip_new_profiles`), nor loosen a
limit (`codur.config.clamp`). Trust is per file and
per content: `codur trust` records the file's sha256 in the user config folder; any
change to the file needs a new `codur trust`. The keys in `USER_ONLY` act beyond the
folder, so no project file sets them, trusted or not. docs/safety.md has the table of
every key (`codur.config.exposure`)."""

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
    "llm.profiles.*.provider",
    "llm.profiles.*.model",
    "llm.profiles.*.script",
    "llm.profiles.*.model_file",
    "llm.profiles.*.weights",
    "llm.default_profile",
    "llm.fallback_order",
    "ask.profile",
    "agents.configs.*.profile",
    "agents.configs.*.model",
    "undo",
    "tools.ignore",
    "tools.git_hooks",
    "tools.code_index_dir",
    "log.enabled",
    "memory.enabled",
    "memory.max_preference_chars",
    "memory.max_preference_prompt_chars",
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
    "verify.test_command",
    "verify.allow_edit",
    "verify.script_run_s",
    "repair.review",
    "repair.review_probes",
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

USER_ONLY: tuple[str, ...] = ("undo.keep_days", "memory.max_preferences")
"""Key paths that act on other folders (pruning every folder's undo history, cutting the
user-wide preferences): no project file sets them, trusted or not."""


def store_file() -> Path:
    """The user's record of trusted files: e.g. ~/.config/codur/trusted.json."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("codur")) / "trusted.json"


def written_file() -> Path:
    """Codur's record of the folder files it wrote itself (a project's memory file), kept
    apart from the user's trust so that `codur trust --revoke` takes back only the user's
    word: e.g. ~/.config/codur/written.json."""
    return store_file().with_name("written.json")


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
    """Whether the user trusted `path` with its current content. A link never is: trust
    is for a folder's own file (a cloned project's `codur.yaml` linking to a trusted one
    elsewhere would borrow that trust, and with it the other file's settings)."""
    if path.is_symlink():
        return False
    recorded = _load(store or store_file()).get(str(path.resolve()))
    return recorded is not None and recorded == digest(path)


def trust(path: Path, store: Path | None = None) -> str:
    """Trust `path` as it is now; its sha256 (ConfigError for a link: see is_trusted)."""
    if path.is_symlink():
        from codur.errors import ConfigError

        raise ConfigError(f"{path} is a link: only a folder's own file is trusted (copy it)")
    store = store or store_file()
    with locked(store):
        data = _load(store)
        data[str(path.resolve())] = value = digest(path)
        _save(store, data)
    return value


def mark_written(path: Path) -> str:
    """Record that Codur wrote `path` as it is now (from trusted content); its sha256 ("":
    a link, which is never trusted, is not recorded)."""
    return "" if path.is_symlink() else trust(path, written_file())


def was_written(path: Path) -> bool:
    """Whether Codur wrote `path` with its current content (`mark_written`)."""
    return is_trusted(path, written_file())


def revoke(path: Path, store: Path | None = None) -> bool:
    """Forget `path`; whether it was trusted (ConfigError for a link, which never is:
    through it, the trust of the file it leads to would go)."""
    if path.is_symlink():
        from codur.errors import ConfigError

        raise ConfigError(f"{path} is a link, never trusted: nothing to revoke")
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


def strip_user_only(values: dict[str, Any]) -> list[str]:
    """Remove the USER_ONLY keys from a project file's values (in place); their paths."""
    removed = []
    for pattern in USER_ONLY:
        *parents, last = pattern.split(".")
        section: Any = values
        for part in parents:
            section = section.get(part) if isinstance(section, dict) else None
        if isinstance(section, dict) and last in section:
            del section[last]
            removed.append(pattern)
    return removed


def strip_new_profiles(values: dict[str, Any], below: Mapping[str, Any]) -> list[str]:
    """Remove, in place, the entries of `llm.profiles` the trusted config `below` does not
    define: a profile names who reads the prompt (provider, model, host), which an
    untrusted file may not choose. Their dotted paths (`llm.profiles.NAME`)."""
    llm = values.get("llm")
    profiles = llm.get("profiles") if isinstance(llm, dict) else None
    if not isinstance(profiles, dict):
        return []
    llm_below = below.get("llm")
    known = llm_below.get("profiles") if isinstance(llm_below, Mapping) else None
    known = known if isinstance(known, Mapping) else {}
    removed = []
    for name in [n for n in profiles if n not in known]:
        del profiles[name]
        removed.append(f"llm.profiles.{name}")
    return removed
