"""`codur trace`: find the log and the run, build the tree, show it (or print it as JSON)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from codur.errors import ExitCode, UsageError
from codur.traces.logfile import find_run, read_log
from codur.traces.render import outline
from codur.traces.tree import build
from codur.ui import IO

LOG_SUFFIXES = (".log", ".jsonl", ".json")


def trace(
    target: str | None,
    run: str | None,
    full: bool,
    as_json: bool,
    folder_log: Callable[[], Path],
    io: IO,
) -> int:
    """Show run `target` (a run id, or the start or end of one) of the folder's log
    (`folder_log()`), or the run `run` (default: the last) of the log file `target`."""
    path, wanted = _where(target, run, folder_log)
    log = read_log(path)
    tree = build(find_run(log, wanted), log.notes())
    if as_json:
        document = {"log": str(path), **tree.as_json()}
        io.json(document)
    else:
        io.tree(outline(tree, full))
    return ExitCode.OK


def _where(
    target: str | None, run: str | None, folder_log: Callable[[], Path]
) -> tuple[Path, str | None]:
    """The log to read and the run wanted in it (None: its last)."""
    if not target:
        return folder_log(), run
    path = Path(target).expanduser()
    if path.is_file():
        return path, run
    if path.is_dir():
        raise UsageError(f"{target}: a folder, not a debug log (codur -C {target} trace)")
    if "/" in target or target.endswith(LOG_SUFFIXES):
        raise UsageError(f"{target}: no such log file")
    if run is not None and run != target:
        raise UsageError(f"two runs given ({target} and --run {run}): give one")
    return folder_log(), target
