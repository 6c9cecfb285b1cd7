"""The site hooks of the project's Python: the `*.pth` files and `sitecustomize` /
`usercustomize` modules in its site-packages folders. Every program and test run it
starts loads them, so they shape what a check says like pytest's configuration does.
A project's `.venv` lies in the workspace, where the run's programs may write, yet the
folder walk skips virtualenvs: these files are recorded at the start of the run and a
created, changed or deleted one fails the oracle check."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path

HOOK_MODULES = ("sitecustomize.py", "usercustomize.py")


def hook_files(folders: Iterable[str]) -> list[Path]:
    """The site hooks now in `folders` (site-packages; not recursive), sorted."""
    found: set[Path] = set()
    for folder in folders:
        try:
            entries = list(Path(folder).iterdir())
        except OSError:
            continue  # a site-packages folder that does not exist (yet) holds no hook
        found.update(p for p in entries if _is_hook(p))
    return sorted(found)


def _is_hook(path: Path) -> bool:
    return (path.suffix == ".pth" or path.name in HOOK_MODULES) and path.is_file()


def record(folders: Iterable[str]) -> dict[str, bytes]:
    """Each site hook in `folders` (absolute path) and its contents."""
    recorded = {}
    for path in hook_files(folders):
        try:
            recorded[str(path)] = path.read_bytes()
        except OSError:
            continue  # unreadable to Codur: unreadable to the checks' programs too
    return recorded


def digests(recorded: Mapping[str, bytes]) -> dict[str, str]:
    return {path: hashlib.sha256(data).hexdigest() for path, data in recorded.items()}


def changes(known: Mapping[str, str], folders: Iterable[str]) -> dict[str, str]:
    """Site hooks created, changed or deleted since `known` (path -> sha256) was
    recorded: path -> "created", "changed" or "deleted"."""
    now = {str(p) for p in hook_files(folders)}
    found = {path: "created" for path in sorted(now - set(known))}
    for path, digest in sorted(known.items()):
        target = Path(path)
        if not target.is_file():
            found[path] = "deleted"
        elif hashlib.sha256(target.read_bytes()).hexdigest() != digest:
            found[path] = "changed"
    return found
