"""The options several commands share (-C, --config, -o, --profile), and loading the
config they name. Light: imported when `codur --help` runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from codur.errors import UsageError

WorkDir = Annotated[
    Path, typer.Option("-C", "--directory", help="Work in DIR instead of the current folder.")
]
ConfigFile = Annotated[Path | None, typer.Option("--config", help="Extra config file (YAML).")]
Overrides = Annotated[
    list[str] | None,
    typer.Option("-o", "--set", help="Override a config key: -o key.path=value (repeatable)."),
]
Profile = Annotated[
    str | None,
    typer.Option(
        "-m", "--model", "--profile", help="The LLM profile to use (see `codur profiles`)."
    ),
]
Confine = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        "-s",
        help="How the programs Codur runs are confined (sandbox.confine): auto, landlock, "
        "bubblewrap or off; Codex's workspace-write is auto, danger-full-access is off.",
    ),
]
Record = Annotated[
    Path | None,
    typer.Option("--record", metavar="FILE", help="Save every model request and response (JSONL)."),
]
Replay = Annotated[
    Path | None,
    typer.Option("--replay", metavar="FILE", help="Answer from a recording instead of a model."),
]


def load(
    workdir: Path,
    config: Path | None,
    overrides: list[str] | None,
    flags: dict | None = None,
    recovery: bool = False,
):
    """The effective config for a command in `workdir` (UsageError if it is no folder);
    `recovery` (undo, diff, trace): an unknown agent or profile named is only a warning."""
    from codur.config import load_config

    if not workdir.is_dir():
        raise UsageError(f"-C {workdir}: not a folder")
    return load_config(workdir.resolve(), config, overrides or [], flags=flags, recovery=recovery)


def load_and_warn(
    workdir: Path, config: Path | None, overrides: list[str] | None, recovery: bool = False
):
    """`load`, and an IO that has printed the config's warnings (for commands that show
    something from the config): (the loaded config, the IO)."""
    from codur.ui import IO

    loaded = load(workdir, config, overrides, recovery=recovery)
    io = IO()
    for warning in loaded.warnings:
        io.warn(warning)
    return loaded, io


def approval_mode(yes: bool, approval: str | None) -> str | None:
    """`--yes` and `--approval` as one approval mode (None: neither given; a Codex
    spelling is kept for the config to map); UsageError when they contradict."""
    from codur.config.sections import CODEX_APPROVAL

    if yes and CODEX_APPROVAL.get(approval or "", approval) not in (None, "full-auto"):
        raise UsageError(f"--yes means --approval full-auto; it contradicts --approval {approval}")
    return "full-auto" if yes else approval
