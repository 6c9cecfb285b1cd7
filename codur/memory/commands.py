"""`codur memory show | add | forget | clear`: read and change the memory files (also
the `/memory` and `/profile` commands of `codur chat`)."""

from __future__ import annotations

from pathlib import Path

from codur.config import CodurConfig
from codur.errors import CannotWrite, ExitCode, UsageError
from codur.memory.persistent import NODE_LOG, Memory, Scope
from codur.ui import IO

SHOWN_NODES = 5
"""Node log records `codur memory show` lists (the newest)."""


def open_memory(root: Path, config: CodurConfig, io: IO) -> Memory:
    """The memory of `root` and of the user, whether or not runs use it (memory.enabled)."""
    memory = Memory.open(root, config.memory, io.warn, force=True)
    assert memory is not None  # forced
    return memory


def show(memory: Memory, io: IO) -> int:
    if not memory.config.enabled:
        io.warn("memory.enabled is off: runs neither read nor write this memory")
    rows = [
        [p.key, scope, p.text, p.added]
        for scope, f in (("user", memory.user), ("project", memory.project))
        for p in f.data.preferences
    ]
    if rows:
        io.table(
            "Preferences (added to planning and coding prompts)",
            ["key", "scope", "text", "added"],
            rows,
        )
    else:
        io.info('no preferences (add one: codur memory add "always add type hints")')
    answers = memory.project.data.answers.values()
    if answers:
        io.table(
            f"Cached answers ({memory.project.path})",
            ["key", "question", "files read", "added"],
            [[a.key, a.question, str(len(a.files)), a.added] for a in answers],
        )
    else:
        io.info("no cached answers")
    log = memory.project.data.node_log
    io.info(f"node log ({NODE_LOG}): {len(log)} records (at most {memory.config.max_node_log})")
    for r in log[-SHOWN_NODES:]:
        error = f" error: {r.error}" if r.error else ""
        io.info(f"  {r.at} run {r.run_id}: {r.node} {r.duration_s}s{error}")
    return ExitCode.OK


def add(memory: Memory, text: str, scope: Scope, io: IO) -> int:
    try:
        kept = memory.remember_preference(text, scope)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _saved(memory, io, "the preference was not kept")
    io.success(f"kept as a {scope} preference ({kept.key}): {kept.text}")
    return ExitCode.OK


def forget(memory: Memory, key: str, io: IO) -> int:
    what = memory.forget(key)
    if what is None:
        raise UsageError(f"no memory entry has the key {key!r} (see codur memory show)")
    _saved(memory, io, f"{what} was not forgotten")
    io.success(f"forgot {what}")
    return ExitCode.OK


def clear(memory: Memory, scope: Scope, io: IO) -> int:
    memory.clear(scope)
    _saved(memory, io, f"the {scope} memory was not cleared")
    where = memory.user.path if scope == "user" else memory.project.path
    io.success(f"cleared the {scope} memory ({where})")
    return ExitCode.OK


def _saved(memory: Memory, io: IO, otherwise: str) -> None:
    """Write the memory's changes; CannotWrite (exit code 11) when one could not be (the
    warning before says why): a command the user gave must not report success then."""
    if not memory.save(io.warn):
        raise CannotWrite(f"{otherwise}: the memory file could not be written (see above)")
