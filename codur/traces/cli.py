"""`codur trace`: the command-line side (the work is in commands.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from codur.cli_options import ConfigFile, Overrides, WorkDir, load


def trace(
    target: Annotated[
        str | None,
        typer.Argument(
            metavar="RUN_ID|LOG",
            help="A run of this folder's debug log (its id, or the start or end of it), "
            "or a debug log file; default: the last run in this folder's log.",
        ),
    ] = None,
    run_id: Annotated[
        str | None,
        typer.Option("--run", help="The run to show from the log file (default: its last)."),
    ] = None,
    full: Annotated[
        bool,
        typer.Option("--full", help="Show arguments, results, prompts and replies whole."),
    ] = False,
    json_mode: Annotated[bool, typer.Option("--json", help="Print the tree as JSON.")] = False,
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Show a past run as a tree from the debug log: nodes, model calls with tokens and
    times, tool calls (built-in or MCP) and results, verification."""
    from codur.traces import commands
    from codur.ui import IO

    io = IO()

    def folder_log() -> Path:
        from codur.log import log_path
        from codur.workspace import Workspace

        loaded = load(directory, config, overrides, recovery=True)
        for warning in loaded.warnings:  # a broken codur.yaml, left out: said, as undo says it
            io.warn(warning)
        return log_path(loaded.config, Workspace(directory.resolve()))

    return commands.trace(target, run_id, full, json_mode, folder_log, io)
