"""The commands that show or settle something without running a task: `config show`,
`profiles`, `agents`, `graph`, `version`, `trust`, `doctor` (registered in `codur.cli`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from codur.cli_options import ConfigFile, Overrides, Profile, WorkDir, load_and_warn
from codur.errors import ExitCode, UsageError

JsonFlag = Annotated[bool, typer.Option("--json", help="One JSON value on stdout.")]


def config_show(
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
    json_mode: JsonFlag = False,
) -> int:
    """Print the effective config and where each value came from."""
    from codur.config.show import as_json, render
    from codur.errors import ConfigError
    from codur.project.interpreter import locate

    loaded, io = load_and_warn(directory, config, overrides)
    try:
        found = locate(directory.resolve(), loaded.config.tools.python)
        python = {"path": str(found.path), "where": found.where, "error": None}
        shown = f"{found.path} ({found.where}; its pytest: codur doctor)"
    except ConfigError as exc:
        python = {"path": None, "where": None, "error": str(exc)}
        shown = str(exc)
    if json_mode:
        io.json({**as_json(loaded), "project_python": python})
    else:
        io.raw(render(loaded))
        io.raw(f"# project Python: {shown}")
    return ExitCode.OK


def doctor(
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
    profile: Profile = None,
    no_model: Annotated[
        bool, typer.Option("--no-model", help="Do not load the model to time it.")
    ] = False,
    json_mode: JsonFlag = False,
) -> int:
    """Show what a run would use here: the project's Python and its pytest, the check,
    the sandbox, the model and its speed on this machine, the trust of ./codur.yaml."""
    from codur.doctor import as_json, diagnose, render

    loaded, io = load_and_warn(directory, config, overrides)
    findings = diagnose(directory.resolve(), loaded.config, profile, not no_model)
    if json_mode:
        io.json(as_json(findings))
    else:
        io.raw(render(findings))
    return ExitCode.OK


def profiles(
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
    json_mode: JsonFlag = False,
) -> int:
    """List the configured LLM profiles."""
    from codur.catalog import PROFILE_COLUMNS, profile_rows
    from codur.catalog import profiles as profile_facts

    loaded, io = load_and_warn(directory, config, overrides)  # what the folder may not set
    if json_mode:
        io.json(profile_facts(loaded.config))
    else:
        rows = profile_rows(loaded.config)
        io.table("LLM profiles (* = default)", PROFILE_COLUMNS, rows, whole=1)
    return ExitCode.OK


def agents(
    directory: WorkDir = Path("."), config: ConfigFile = None, overrides: Overrides = None
) -> int:
    """List the agents the planner chooses among, and the LLM profiles (no model is loaded)."""
    from codur.catalog import AGENT_COLUMNS, PROFILE_COLUMNS, agent_rows, profile_rows

    loaded, io = load_and_warn(directory, config, overrides)  # what the folder may not set
    cfg = loaded.config
    io.table("Agents (* = default)", AGENT_COLUMNS, agent_rows(cfg), whole=1)
    io.table("LLM profiles (* = default)", PROFILE_COLUMNS, profile_rows(cfg), whole=1)
    return ExitCode.OK


def graph(
    mermaid: Annotated[
        bool, typer.Option("--mermaid", help="Print Mermaid source (the default).")
    ] = False,
    ascii_art: Annotated[
        bool, typer.Option("--ascii", help="Draw it in the terminal (needs codur[graph]).")
    ] = False,
    png: Annotated[
        Path | None,
        typer.Option(
            "--png", metavar="FILE", help="Write a PNG, offline (needs codur[graph-png])."
        ),
    ] = None,
    mode: Annotated[
        str, typer.Option("--mode", help="Which graph: run (tasks, the default) or ask.")
    ] = "run",
) -> int:
    """Print the agent graph, as compiled: Mermaid source, ASCII art, or a PNG file."""
    from codur.diagram import draw, write_png
    from codur.ui import IO

    chosen = [
        name for name, on in (("--mermaid", mermaid), ("--ascii", ascii_art), ("--png", png)) if on
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one of {', '.join(chosen)}")
    if mode not in ("run", "ask"):
        raise UsageError(f"--mode {mode}: choose run or ask")
    if png is not None:
        IO().info(f"wrote {write_png(png, mode)}")
    else:
        IO().raw(draw("ascii" if ascii_art else "mermaid", mode))
    return ExitCode.OK


def version() -> int:
    """Print Codur's version and the versions of its main libraries."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    from codur import __version__
    from codur.ui import IO

    parts = [f"codur {__version__}", f"python {sys.version.split()[0]}"]
    for dist in ("langgraph", "langchain-core", "llama-cpp-python"):
        try:
            parts.append(f"{dist} {dist_version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist} (not installed)")
    IO().info("\n".join(parts))
    return ExitCode.OK


def trust_command(
    directory: WorkDir = Path("."),
    revoke: Annotated[
        bool, typer.Option("--revoke", help="Stop trusting the folder's Codur files.")
    ] = False,
) -> int:
    """Trust the folder's codur.yaml and .codur/memory.json as they are now (like `direnv
    allow`): until then the config may not set where API keys go, the log path,
    confinement, approval, MCP servers, the tools' safety switches or what program an
    agent starts (a CLI agent of its own, an agent's type, command or args), and a memory file
    Codur did not write keeps its preferences and answers out of prompts. A changed file
    needs trusting again."""
    from codur.config import trust
    from codur.memory.store import project_file
    from codur.ui import IO

    files = [directory.resolve() / "codur.yaml", project_file(directory.resolve())]
    found = [f for f in files if f.is_file()]
    if not found:
        raise UsageError(f"{directory.resolve()}: no codur.yaml or .codur/memory.json to trust")
    for path in found:
        if revoke:
            was = trust.revoke(path)
            IO().info(f"{'no longer trusted' if was else 'was not trusted'}: {path}")
        else:
            IO().info(f"trusted {path} (sha256 {trust.trust(path)[:16]}...)")
    return ExitCode.OK
