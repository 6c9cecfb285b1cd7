"""`codur runs` and `codur resume`: the command-line side (the work is in commands.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from codur.cli_options import WorkDir


def runs(
    directory: WorkDir = Path("."),
    json_mode: Annotated[bool, typer.Option("--json", help="One JSON array of runs.")] = False,
) -> int:
    """List this folder's runs, undos included, newest first (also `codur undo --list`):
    id, start, status (for a pass, what it rests on: `verified (project tests, 3 passed)`),
    task, model calls, files changed, and a note (undone by, undo of, codur resume ID)."""
    from codur.resume.listing import list_runs
    from codur.ui import IO
    from codur.workspace import Workspace

    return list_runs(Workspace(_folder(directory)), IO(), json_mode)


def resume(
    run_id: Annotated[
        str | None,
        typer.Argument(
            help="The run to resume (an id, or its start or end; default: the "
            "latest interrupted run of this folder)."
        ),
    ] = None,
    directory: WorkDir = Path("."),
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every step live.")] = False,
    json_mode: Annotated[
        bool, typer.Option("--json", help="JSONL events on stdout; human output on stderr.")
    ] = False,
    approval: Annotated[
        str | None,
        typer.Option(
            "--approval",
            help="Approval mode for the rest of the run (suggest, auto-edit, full-auto); "
            "default: the run's own. A run stopped for want of an approval goes on with it.",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Same as --approval full-auto.")] = False,
) -> int:
    """Continue an interrupted run (Ctrl-C, killed, crashed, model server gone, stopped
    for an approval) from its last completed step, with the task, profile and config it
    started with (`--approval`/`--yes`: another approval mode)."""
    from pydantic import ValidationError

    from codur.cli_options import approval_mode
    from codur.config.sections import ApprovalConfig
    from codur.errors import UsageError
    from codur.resume import commands
    from codur.workspace import Workspace

    mode = approval_mode(yes, approval)
    if mode is not None:  # checked (and a Codex spelling mapped) as the config does
        try:
            mode = ApprovalConfig(mode=mode).mode
        except ValidationError as exc:
            said = exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise UsageError(f"--approval {approval}: {said}") from None
    return commands.resume(Workspace(_folder(directory)), run_id, verbose, json_mode, mode)


def _folder(directory: Path) -> Path:
    from codur.errors import UsageError

    if not directory.is_dir():
        raise UsageError(f"-C {directory}: not a folder")
    return directory.resolve()
