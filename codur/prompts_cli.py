"""`codur prompts ...`: the command-line side (the work is in codur.promptbook and
codur.config.edit). Light: it is imported when `codur --help` runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from codur.cli_options import ConfigFile, Overrides, WorkDir, load_and_warn
from codur.errors import ExitCode, UsageError

prompts_app = typer.Typer(
    help="The prompt each node sends to its model: list them, show them, reset custom ones.",
    no_args_is_help=True,
)
Node = Annotated[
    str | None, typer.Argument(help="A prompt's name, e.g. planner (default: every prompt).")
]


def _known(node: str | None) -> list[str] | None:
    """[node] (UsageError naming the known prompts if it is none), or None for all."""
    from codur.promptbook import REGISTRY

    if node is not None and node not in REGISTRY:
        raise UsageError(f"unknown prompt '{node}' (known: {', '.join(REGISTRY)})")
    return None if node is None else [node]


@prompts_app.command("list")
def list_prompts(
    directory: WorkDir = Path("."), config: ConfigFile = None, overrides: Overrides = None
) -> int:
    """List the prompts: name, source (built-in or the custom file), required placeholders."""
    from codur.promptbook import PromptBook
    from codur.promptbook.listing import COLUMNS, rows

    loaded, io = load_and_warn(directory, config, overrides)
    book = PromptBook(loaded.config.prompts)
    io.table("Prompts (config: prompts.NAME: FILE)", COLUMNS, rows(book, directory.resolve()))
    return ExitCode.OK


@prompts_app.command("show")
def show(
    node: Node = None,
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
) -> int:
    """Print the prompt of NODE (default: every prompt) as the model gets it, with example
    values in its placeholders, under a line saying whether it is built-in or custom."""
    from codur.promptbook import PromptBook
    from codur.promptbook.listing import shown

    names = _known(node)
    loaded, io = load_and_warn(directory, config, overrides)
    book = PromptBook(loaded.config.prompts)
    io.raw(shown(book, names or book.names(), directory.resolve()))
    return ExitCode.OK


@prompts_app.command("reset")
def reset(
    node: Node = None,
    directory: WorkDir = Path("."),
    config: Annotated[
        Path | None,
        typer.Option("--config", help="The config file to edit (default: DIR/codur.yaml)."),
    ] = None,
) -> int:
    """Remove the custom prompt of NODE (default: every one) from the folder's codur.yaml,
    keeping the rest of the file; the built-in prompt is used again."""
    from codur.config import trust
    from codur.config.edit import remove_entries
    from codur.ui import IO

    names = _known(node)
    if not directory.is_dir():
        raise UsageError(f"-C {directory}: not a folder")
    own = directory / "codur.yaml"
    if config is None and own.is_symlink():  # it may lead anywhere: the user's own config
        raise UsageError(f"{own} is a link: name the file to edit with --config")
    file = (config or own).resolve()
    what = f"custom prompt for {node}" if node else "custom prompt"
    io = IO()
    if not file.is_file():
        io.info(f"no {what} to reset: {file} does not exist")
        return ExitCode.OK
    trusted = trust.is_trusted(file)
    removed = remove_entries(file, "prompts", names)
    if not removed:
        io.info(f"no {what} to reset in {file}")
        return ExitCode.OK
    for name, value in removed.items():
        io.info(f"removed prompts.{name} ({value}) from {file}")
    if trusted:  # only settings were removed: what the user trusted still holds
        trust.trust(file)
        io.info(f"{file} stays trusted")
    return ExitCode.OK
