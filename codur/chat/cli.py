"""`codur chat`: the command-line side (the session is in repl.py). Light: it is imported
when `codur --help` runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from codur.cli_options import ConfigFile, Confine, Overrides, Profile, WorkDir, load


def chat(
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
    profile: Profile = None,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every step live.")] = False,
    approval: Annotated[
        str | None,
        typer.Option(
            "--approval",
            "-a",
            "--ask-for-approval",
            help="suggest, auto-edit (the default) or full-auto; or Codex's untrusted, "
            "on-request or never (the same three, in that order).",
        ),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Ask nothing: the same as --approval full-auto.")
    ] = False,
    sandbox: Confine = None,
) -> int:
    """Chat: each line is a task, run with what the session did so far in mind (also
    `codur` alone in a terminal). /undo, /diff, /memory, /profile TEXT,
    /model [NAME], /help, /exit."""
    from codur.chat.repl import Chat, line_reader
    from codur.cli_options import approval_mode
    from codur.ui import IO

    flags = {
        "--yes" if yes else "--approval": ("approval.mode", approval_mode(yes, approval)),
        "--sandbox": ("sandbox.confine", sandbox),
    }
    loaded = load(directory, config, overrides, flags)
    loaded.config.profile(profile)  # an unknown --profile is a usage error before the prompt
    session = Chat(loaded, directory.resolve(), IO(verbose=verbose), profile, verbose)
    return session.loop(line_reader())
