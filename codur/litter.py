"""Leftovers of a Codur that was killed (kill -9, a power cut): found and removed by the
next run.

- Temporary folders in the system's temporary folder (scratch copies, programs' TMPDIR,
  derived test files, traces) are named `codur-<pid>-<kind>-...` after the Codur process
  that made them; one whose process is gone is removed.
- An atomic write goes through `.<name>.<pid>.<random>.codur-tmp` beside its file,
  renamed over the file when complete; one whose writer is gone is removed from the
  workspace. (Written before this naming: `.<name>.<random>.codur-tmp`, always stale.)
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

TEMP_SUFFIX = ".codur-tmp"
_TEMP_DIR = re.compile(r"^codur-(\d+)-[a-z]+-")
_TEMP_FILE = re.compile(r"^\..+?\.(?:(\d+)\.)?[^.]+\.codur-tmp$")


def temp_prefix(kind: str) -> str:
    """The prefix of a temporary folder of this process (`kind`: scratch, program, ...)."""
    return f"codur-{os.getpid()}-{kind}-"


_PATH_START = r"(?<![\w.~/-])"
"""Where a path starts: not inside a word or another path (`/usr/src/app` holds no `/src`)."""


def _temp_path() -> re.Pattern[str]:
    """A Codur temporary folder: under the system's temporary folder, reached by `../`
    (pytest's paths, relative to the folder it ran in), or named alone."""
    tmp = dict.fromkeys((tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir())))
    under = "|".join(re.escape(t.rstrip(os.sep) + os.sep) for t in tmp)
    return re.compile(rf"{_PATH_START}(?:{under}|(?:\.\./)+)?codur-\d+-([a-z]+)-\w+")


def portable(text: str, root: Path) -> str:
    """`text` (a program's traceback, pytest's output) without where things happened to
    be: paths in the workspace relative to it, Codur's temporary folders by their kind
    (`codur-derived`). A prompt then reads the same wherever the folder is, and a model
    that samples greedily answers the same. Linear in the text (program output may be
    one long line)."""
    for where in dict.fromkeys((str(root), str(root.resolve()))):
        prefix = where.rstrip(os.sep) + os.sep
        if prefix != os.sep:  # a workspace at / : every absolute path is in it already
            text = re.sub(_PATH_START + re.escape(prefix), "", text)
    return _temp_path().sub(lambda m: f"codur-{m.group(1)}", text)


def write_prefix(name: str) -> str:
    """The prefix of an atomic write's temporary file for the file `name`."""
    return f".{name}.{os.getpid()}."


def alive(pid: int) -> bool:
    """Whether process `pid` exists (another user's counts)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_temp(folder: Path | None = None) -> list[Path]:
    """Remove the temporary folders of Codur processes that are gone; what was removed."""
    folder = Path(folder or tempfile.gettempdir())
    removed = []
    for entry in os.scandir(folder):
        match = _TEMP_DIR.match(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not alive(int(match[1])):
            shutil.rmtree(entry.path, onerror=_gone_is_fine)
            removed.append(Path(entry.path))
    return removed


def _gone_is_fine(func: object, path: str, exc_info: tuple) -> None:
    """rmtree's error handler: another Codur removing the same leftovers is no error."""
    if not isinstance(exc_info[1], FileNotFoundError):
        raise exc_info[1]


def sweep_workspace(root: Path, skip_dirs: Iterable[str]) -> list[str]:
    """Remove stale `*.codur-tmp` files under `root` (not descending into `skip_dirs`);
    their workspace-relative paths."""
    skip = set(skip_dirs)
    removed = []
    # not codur.tools.walk: a leftover in a gitignored folder is removed too
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip]
        for name in files:
            match = _TEMP_FILE.match(name) if name.endswith(TEMP_SUFFIX) else None
            if match is None or (match[1] is not None and alive(int(match[1]))):
                continue
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                path.unlink(missing_ok=True)  # another Codur may have removed it first
                removed.append(path.relative_to(root).as_posix())
    return sorted(removed)
