"""`codur undo` and `codur diff`: the command-line side (the work is in codur.undo.commands).
It sits above codur.undo because `codur undo --list` is `codur runs` (listing.py), which
reads the checkpoints of killed runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from codur.cli_options import ConfigFile, Overrides, WorkDir, load_and_warn


def undo(
    run_id: Annotated[
        str | None,
        typer.Option("--run", help="The run to undo (an id, or its end, from --list)."),
    ] = None,
    list_runs: Annotated[
        bool, typer.Option("--list", help="List this folder's runs, newest first (codur runs).")
    ] = False,
    json_mode: Annotated[
        bool, typer.Option("--json", help="With --list: the runs as one JSON array.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite files changed since the run ended.")
    ] = False,
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Put back what the last run changed (files it changed, created or deleted, by
    Codur's edits or the programs it ran), as they were before it."""
    from codur.errors import UsageError
    from codur.resume.listing import list_runs as listing
    from codur.undo import commands
    from codur.workspace import Workspace

    if json_mode and not list_runs:
        raise UsageError("--json goes with --list (codur undo --list --json)")
    loaded, io = load_and_warn(directory, config, overrides, recovery=True)
    ws = Workspace(directory.resolve())
    if list_runs:
        return listing(ws, io, json_mode)
    return commands.undo(ws, loaded.config, run_id, force, io)


def diff(
    run_id: Annotated[
        str | None, typer.Argument(help="The run (default: the last recorded one).")
    ] = None,
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Print what a run changed, as a unified diff (programs' changes included)."""
    from codur.undo import commands
    from codur.workspace import Workspace

    loaded, io = load_and_warn(directory, config, overrides, recovery=True)
    return commands.diff(Workspace(directory.resolve()), loaded.config, run_id, io)
