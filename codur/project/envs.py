"""Where a project keeps its Python environment on disk: a virtualenv folder, or one a
project manager (uv, Poetry, Hatch) made. Only files are read; no tool is run.

Every function returns candidate environment folders (a venv's `sys.prefix`), most likely
first; `python_in` names the interpreter inside one, or None when there is none.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

VENV_NAMES = (".venv", "venv")
"""Folder names of a project's own virtualenv, looked for from the folder up to the root."""


def python_in(env: Path) -> Path | None:
    """The interpreter of the environment folder `env` (None: not an environment)."""
    names = ("Scripts/python.exe",) if sys.platform == "win32" else ("bin/python", "bin/python3")
    for name in names:
        candidate = env / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def repository_root(folder: Path) -> Path:
    """The top folder of the git repository `folder` lies in; `folder` when in none."""
    for parent in [folder, *folder.parents]:
        if (parent / ".git").exists():
            return parent
    return folder


def up_to_root(folder: Path) -> list[Path]:
    """`folder` and its parents, up to its repository's top folder."""
    top = repository_root(folder)
    chain = [folder]
    for parent in folder.parents:
        if chain[-1] == top:
            break
        chain.append(parent)
    return chain


def pyproject(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest pyproject.toml from `folder` up to the repository root, parsed (None:
    none, or not readable as TOML)."""
    for parent in up_to_root(folder):
        path = parent / "pyproject.toml"
        if path.is_file():
            try:
                return parent, tomllib.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return None
    return None


def uv_env(folder: Path, environ: Mapping[str, str]) -> list[Path]:
    """uv's project environment when `UV_PROJECT_ENVIRONMENT` moves it from `.venv`
    (relative to the project's top folder)."""
    value = environ.get("UV_PROJECT_ENVIRONMENT", "")
    found = pyproject(folder)
    if not value or found is None:
        return []
    return [found[0] / Path(value).expanduser()]


def hatch_env(folder: Path, environ: Mapping[str, str]) -> list[Path]:
    """Hatch's default environment: `HATCH_ENV_TYPE_VIRTUAL_PATH`, the `path` option of
    `[tool.hatch.envs.default]` (or hatch.toml's `[envs.default]`), or `.hatch/default`
    in the project's top folder (hatch's directory when it is configured in the project)."""
    found = pyproject(folder)
    if found is None:
        return []
    top, data = found
    tool = data.get("tool", {}).get("hatch")
    table = tool if isinstance(tool, dict) else None
    hatch_toml = top / "hatch.toml"
    if hatch_toml.is_file():
        try:
            table = tomllib.loads(hatch_toml.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            table = None
    if table is None:
        return []
    default = table.get("envs", {}).get("default", {})
    configured = environ.get("HATCH_ENV_TYPE_VIRTUAL_PATH") or (
        default.get("path") if isinstance(default, dict) else None
    )
    envs = [top / Path(str(configured)).expanduser()] if configured else []
    return [*envs, top / ".hatch" / "default"]


def poetry_env(folder: Path, environ: Mapping[str, str]) -> list[Path]:
    """Poetry's environment in its cache (`POETRY_VIRTUALENVS_PATH`, else the cache
    folder's `virtualenvs`), named as Poetry names it: the project's name and a hash of
    its folder, the Python version last (the newest first). In-project `.venv` folders
    are found as every project's."""
    found = pyproject(folder)
    if found is None:
        return []
    top, data = found
    poetry = data.get("tool", {}).get("poetry")
    if not isinstance(poetry, dict):
        return []
    name = poetry.get("name") or data.get("project", {}).get("name")
    if not isinstance(name, str) or not name:
        return []
    store = _poetry_store(environ)
    prefix = _poetry_env_name(name, top)
    return sorted(store.glob(f"{prefix}-py*"), key=_version_key, reverse=True)


def _poetry_store(environ: Mapping[str, str]) -> Path:
    if environ.get("POETRY_VIRTUALENVS_PATH"):
        return Path(environ["POETRY_VIRTUALENVS_PATH"]).expanduser()
    if environ.get("POETRY_CACHE_DIR"):
        return Path(environ["POETRY_CACHE_DIR"]).expanduser() / "virtualenvs"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pypoetry", appauthor=False)) / "virtualenvs"


def _poetry_env_name(name: str, top: Path) -> str:
    """Poetry's `EnvManager.generate_env_name`: the sanitized name and 8 characters of
    the urlsafe base64 sha256 of the project folder."""
    sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", name.lower())[:42]
    digest = hashlib.sha256(os.path.normcase(os.path.realpath(top)).encode()).digest()
    return f"{sanitized}-{base64.urlsafe_b64encode(digest).decode()[:8]}"


def _version_key(path: Path) -> tuple[int, ...]:
    version = path.name.rsplit("-py", 1)[-1]
    return tuple(int(p) for p in version.split(".") if p.isdigit())
