"""The command line: parse, load config, call into the package, map the outcome to an exit code.

Only typer and Codur's light modules are imported at start-up; LangChain and the models
load inside the commands that need them, so `codur --help` stays fast.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from codur import cli_info
from codur.challenges.cli import challenges_app
from codur.chat.cli import chat
from codur.cli_group import HELP_FLAGS, VERSION_FLAGS, DefaultToRun
from codur.cli_options import (
    ConfigFile,
    Confine,
    Overrides,
    Profile,
    Record,
    Replay,
    WorkDir,
    approval_mode,
)
from codur.cli_options import load as _load
from codur.errors import CodurError, ExitCode, cannot_write
from codur.memory.cli import memory_app
from codur.prompts_cli import prompts_app
from codur.resume.cli import resume, runs
from codur.resume.undo_cli import diff, undo
from codur.traces.cli import trace

app = typer.Typer(
    cls=DefaultToRun,
    help='Codur, a coding agent. Run a task: codur "fix @main.py"',
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": list(HELP_FLAGS)},
)


def _print_version(asked: bool) -> None:
    if asked:
        raise typer.Exit(cli_info.version())


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            *VERSION_FLAGS,
            is_eager=True,
            callback=_print_version,
            help="Print the version (codur version) and exit.",
        ),
    ] = False,
) -> None:
    """The options of `codur` itself (before any command)."""


config_app = typer.Typer(help="Inspect the effective configuration.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(challenges_app, name="challenges")
app.add_typer(memory_app, name="memory")
app.add_typer(prompts_app, name="prompts")


@app.command()
def run(
    task: Annotated[str, typer.Argument(help="What to do, e.g. 'fix @main.py'.")],
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
    profile: Profile = None,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every step live.")] = False,
    max_iterations: Annotated[int | None, typer.Option(help="Max edit/verify rounds.")] = None,
    max_llm_calls: Annotated[
        int | None, typer.Option(min=0, help="Max model calls in this run (0: no model).")
    ] = None,
    no_model: Annotated[
        bool,
        typer.Option(
            "--no-model", help="Use no model: file operations and the repair search only."
        ),
    ] = False,
    approval: Annotated[
        str | None,
        typer.Option(
            "--approval",
            "-a",
            "--ask-for-approval",
            help="What needs your yes: suggest (every edit, shown as a diff, and every "
            "program), auto-edit (programs and destructive actions; the default) or "
            "full-auto (nothing); Codex's untrusted, on-request and never are the same three.",
        ),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Ask nothing: the same as --approval full-auto.")
    ] = False,
    sandbox: Confine = None,
    json_mode: Annotated[
        bool, typer.Option("--json", help="JSONL events on stdout; human output on stderr.")
    ] = False,
    record: Record = None,
    replay: Replay = None,
    allow_edit: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-edit",
            metavar="FILE",
            help="Let this run change FILE although the checks judge by it (an expected "
            "output, a test, pytest's configuration); repeatable.",
        ),
    ] = None,
    test_cmd: Annotated[
        str | None,
        typer.Option(
            "--test-cmd",
            metavar="COMMAND",
            help="The project's test command (e.g. 'pytest -m \"not slow\"'), split as a "
            "shell would, run without one; python and pytest at its start are the "
            "project's interpreter. Default: detected (verify.test_command).",
        ),
    ] = None,
) -> int:
    """Run TASK in the current folder (the default command)."""
    from codur.run import task_command

    mode = approval_mode(yes, approval)
    flags = {
        "--max-iterations": ("runtime.max_iterations", max_iterations),
        "--max-llm-calls": ("runtime.max_llm_calls", 0 if no_model else max_llm_calls),
        "--yes" if yes else "--approval": ("approval.mode", mode),
        "--record": ("runs.record", str(record.resolve()) if record else None),
        "--replay": ("runs.replay", str(replay.resolve()) if replay else None),
        "--allow-edit": ("verify.allow_edit", allow_edit or None),
        "--test-cmd": ("verify.test_command", test_cmd),
        "--sandbox": ("sandbox.confine", sandbox),
    }
    loaded = _load(directory, config, overrides, flags)
    if replay is not None and profile is None:  # the recording's requests are that profile's
        from codur.models.recording import recorded_profile

        profile = recorded_profile(replay.resolve())
    return task_command(
        loaded,
        directory.resolve(),
        task,
        profile=profile,
        verbose=verbose,
        json_mode=json_mode,
    )


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question about the code in the folder.")],
    directory: WorkDir = Path("."),
    config: ConfigFile = None,
    overrides: Overrides = None,
    profile: Profile = None,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every step live.")] = False,
    json_mode: Annotated[
        bool,
        typer.Option("--json", help="JSONL events on stdout, the last (ask.end) with the answer."),
    ] = False,
) -> int:
    """Answer QUESTION about the code in the folder, citing path:line; no file is changed."""
    from codur.run import ask_command

    loaded = _load(directory, config, overrides)
    return ask_command(
        loaded, directory.resolve(), question, profile=profile, verbose=verbose, json_mode=json_mode
    )


app.command()(undo)
app.command()(diff)
app.command()(chat)
app.command()(runs)
app.command()(resume)
app.command()(trace)


config_app.command("show")(cli_info.config_show)
app.command()(cli_info.profiles)
app.command()(cli_info.agents)
app.command()(cli_info.graph)
app.command()(cli_info.version)
app.command("trust")(cli_info.trust_command)
app.command()(cli_info.doctor)


def main(argv: list[str] | None = None) -> None:
    """Entry point: the one place exceptions become messages and exit codes."""
    from codur.errors import Interrupted
    from codur.exiting import leave
    from codur.interrupt import output_closed, stop_on_signals, stopped
    from codur.ui import IO

    args = sys.argv[1:] if argv is None else argv
    IO.ended, DefaultToRun.routed = False, None  # this command line's
    with stop_on_signals():
        try:
            code = app(args=args, standalone_mode=False)
            if (interrupted := stopped()) is not None:  # typer made it an exit code
                raise interrupted
        except CodurError as exc:
            IO().error(str(exc))
            code = exc.exit_code
            _json_end(args, str(exc), code)
        except typer.Exit as exc:
            code = exc.exit_code
        except typer.TyperException as exc:  # click's usage errors (typer vendors click)
            if type(exc).__name__ == "NoArgsIsHelpError":  # `codur memory`: its help
                exc.show()
            else:
                IO().error(_usage_line(exc))
                _json_end(args, _usage_line(exc), ExitCode.USAGE)
            code = ExitCode.USAGE
        except Interrupted as exc:
            if not exc.quiet:
                IO().error(f"interrupted ({exc})")
            code = exc.exit_code
        except (KeyboardInterrupt, typer.Abort):
            IO().error("interrupted")
            code = ExitCode.INTERRUPTED
        except BrokenPipeError:  # stdout closed outside IO (typer's own help, ...)
            code = output_closed().exit_code
        except Exception as exc:  # noqa: BLE001 - a bug outside a run: one line, exit 4
            if (machine := cannot_write(exc)) is not None:  # no bug: a read-only folder, ...
                IO().error(str(machine))
                code = machine.exit_code
            else:
                IO().error(f"internal error: {type(exc).__name__}: {exc} (a bug: please report it)")
                code = ExitCode.ERROR
    leave(int(code or 0))  # sys.exit, without the interpreter's teardown (0.3 s)


def _json_end(args: list[str], message: str, code: int) -> None:
    """--json: a run or a question the command line or its config stopped before it
    started still ends its stream with an end record (`run.end`, `ask.end`), as one that
    started does."""
    from codur.events import EVENT_SCHEMA
    from codur.ui import IO

    kind = DefaultToRun.routed
    if "--json" not in args or kind not in ("run", "ask") or IO.ended:
        return
    record = {"ts": round(time.time(), 3), "event": f"{kind}.end", "status": "error"}
    ending = {"error": message, "exit_code": int(code), "schema": EVENT_SCHEMA}
    IO.ended = True
    if sys.stdout is None or sys.stdout.closed:  # `>&-`: the error line said it all
        return
    try:
        sys.stdout.write(json.dumps({**record, **ending}) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| true`: nobody reads the stream; the exit code stays
        return


def _usage_line(exc: Exception) -> str:
    """A usage error in one line, with the help command for it: "No such option: --x
    (see codur undo --help)"."""
    ctx = getattr(exc, "ctx", None)
    root = ctx.find_root().command_path if ctx is not None else ""
    command = ctx.command_path[len(root) :].strip() if ctx is not None else ""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    return f"{message} (see {' '.join(['codur', command]).strip()} --help)"
