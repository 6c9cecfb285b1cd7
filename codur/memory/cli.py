"""`codur memory ...`: the command-line side (the work is in commands.py). Light: it is
imported when `codur --help` runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from codur.cli_options import ConfigFile, Overrides, WorkDir, load_and_warn

if TYPE_CHECKING:
    from codur.memory.persistent import Memory
    from codur.ui import IO

memory_app = typer.Typer(
    help="What Codur remembers: preferences, cached answers, the node log.",
    no_args_is_help=True,
)
UserScope = Annotated[
    bool, typer.Option("--user", help="The user-wide memory (all projects), not this folder's.")
]


def _open(directory: Path, config: Path | None, overrides: list[str] | None) -> tuple[Memory, IO]:
    from codur.memory.commands import open_memory

    loaded, io = load_and_warn(directory, config, overrides)
    return open_memory(directory.resolve(), loaded.config, io), io


@memory_app.command("show")
def show(
    directory: WorkDir = Path("."), config: ConfigFile = None, overrides: Overrides = None
) -> int:
    """List the preferences (with their keys), the cached answers and the node log."""
    from codur.memory import commands

    return commands.show(*_open(directory, config, overrides))


@memory_app.command("add")
def add(
    text: Annotated[
        str, typer.Argument(help='A standing preference, e.g. "always add type hints".')
    ],
    user: UserScope = False,
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Keep TEXT as a preference, added to planning and coding prompts from now on."""
    from codur.memory import commands

    memory, io = _open(directory, config, overrides)
    return commands.add(memory, text, "user" if user else "project", io)


@memory_app.command("forget")
def forget(
    key: Annotated[str, typer.Argument(help="A key from `codur memory show` (or node-log).")],
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Forget one preference or cached answer, or the node log (`node-log`)."""
    from codur.memory import commands

    memory, io = _open(directory, config, overrides)
    return commands.forget(memory, key, io)


@memory_app.command("clear")
def clear(
    user: UserScope = False,
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Forget everything this folder's memory holds (--user: the user-wide preferences)."""
    from codur.memory import commands

    memory, io = _open(directory, config, overrides)
    return commands.clear(memory, "user" if user else "project", io)
