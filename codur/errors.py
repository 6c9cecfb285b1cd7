"""Typed exceptions and the exit codes they map to.

Exceptions carry control flow to one catch site (the CLI, `codur.cli.main`); each names
its exit code so the mapping lives in one place, and the README's table documents it.
"""

from __future__ import annotations

import errno
import signal
from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes. The README's "Exit codes" table explains each one for users;
    tests/test_errors.py checks that it lists exactly these codes."""

    OK = 0
    """The task finished and, where a check applied, the project's own check verified it
    (or the run changed nothing: an answer)."""
    NOT_VERIFIED = 1
    """The task ran but its verification failed (or the run gave up / got stuck)."""
    USAGE = 2
    """Bad command line, bad config file or bad config value."""
    MODEL_UNREACHABLE = 3
    """The model provider could not be reached or the model could not be loaded, or the
    agent could not run or failed (after every fallback)."""
    ERROR = 4
    """Any other failure inside Codur (a bug: please report it with the debug log)."""
    APPROVAL_NEEDED = 5
    """An action needed the user's approval and nobody could give it (no terminal, or
    --json): the run stopped before doing it."""
    UNDO_REFUSED = 6
    """`codur undo` refused to overwrite files changed since the run ended (--force)."""
    MISSING_EXTRA = 7
    """A command needs an optional package that is not installed (`codur graph --ascii`
    or `--png`, `codur challenges run --ray`, the `anthropic` provider); the message names
    the pip extra to install."""
    REPLAY_MISMATCH = 8
    """`--replay`: the run asked the model something the recording does not hold."""
    BUSY = 9
    """Another Codur run that may change files (a task, `codur resume`, `codur undo`, the
    Python API's run) holds the workspace: nothing was done; try again when it ends."""
    CHECKED = 10
    """The task finished and passed a check, but only one derived from the task, the
    docstrings' examples or a test the model wrote (status `checked`), not the project's
    own expected output or tests: weaker evidence, told apart from both 0 and 1."""
    CANNOT_WRITE = 11
    """Codur could not write a file it needs (its debug log, its records, a file the run
    changes): the folder is read-only or not writable, or the disk is full. The message
    names the file; what was written before is whole (writes are atomic)."""
    PROJECT_ENV = 12
    """The project's Python cannot run the run's check: the check needs pytest and the
    interpreter Codur found (`codur doctor` shows it) has none, or does not run. Nothing
    ran; the message says how to install pytest there, or to set `tools.python`."""
    HANGUP = 129
    """Stopped by SIGHUP (the terminal closed); cleaned up like Ctrl-C."""
    INTERRUPTED = 130
    """Interrupted by the user (Ctrl-C)."""
    OUTPUT_CLOSED = 141
    """Standard output was closed (`codur --json ... | head -1`); stopped quietly."""
    TERMINATED = 143
    """Stopped by SIGTERM (e.g. `timeout`, `kill`); cleaned up like Ctrl-C."""


class CodurError(Exception):
    """Base class: a message fit for one line on the terminal, and an exit code."""

    exit_code: ExitCode = ExitCode.ERROR


class ConfigError(CodurError):
    """Invalid configuration: names the file (or variable/flag), key and line when known.
    `key`: the setting at fault, when the error is found after loading (where it was set
    is added by the command that knows the config's layers)."""

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, key: tuple[str, ...] | None = None) -> None:
        super().__init__(message)
        self.key = key


class MissingKey(ConfigError):
    """A profile's API key variable is not set: the profile cannot be used here (the next
    profile of `llm.fallback_order` may be)."""


class UsageError(CodurError):
    """Invalid command-line input."""

    exit_code = ExitCode.USAGE


class ModelUnreachable(CodurError):
    """A provider could not be reached (after retries) or a local model failed to load."""

    exit_code = ExitCode.MODEL_UNREACHABLE


class ModelError(CodurError):
    """The provider answered, but with an error that retrying will not fix (HTTP 4xx)."""

    exit_code = ExitCode.MODEL_UNREACHABLE


class AgentUnavailable(CodurError):
    """An agent cannot run here: its CLI is not installed, its server cannot be reached
    or lacks the model. The message names what to install or start; the next agent of
    `agents.preferences.fallback_order` takes over, if any."""

    exit_code = ExitCode.MODEL_UNREACHABLE


class ProjectEnvError(CodurError):
    """The project's Python lacks what the run's check needs (pytest), found before the
    run starts."""

    exit_code = ExitCode.PROJECT_ENV


class LimitReached(CodurError):
    """A configured limit (LLM calls, iterations) stopped the run."""

    exit_code = ExitCode.NOT_VERIFIED


class WorkspaceError(CodurError):
    """A path outside the workspace, or an unreadable/unwritable file."""

    exit_code = ExitCode.USAGE


class ApprovalRequired(CodurError):
    """An action needs the user's yes under the approval mode, and nobody can be asked:
    the run stops before the action (never blocks waiting for input)."""

    exit_code = ExitCode.APPROVAL_NEEDED

    def __init__(self, what: str, mode: str, allow_with: str) -> None:
        super().__init__(
            f"needs approval to {what} (approval mode {mode}, and no terminal to ask); "
            f"run it in a terminal to be asked, or allow it with --approval {allow_with}"
        )
        self.what = what


class EditDeclined(CodurError):
    """The user said no to an edit (approval mode suggest); the model is told."""

    def __init__(self, path: str) -> None:
        super().__init__(f"the user declined this edit to {path}")
        self.path = path


class UndoRefused(CodurError):
    """Undo would overwrite files the user changed after the run ended."""

    exit_code = ExitCode.UNDO_REFUSED


class MissingExtra(CodurError):
    """An optional package a command needs is not installed."""

    exit_code = ExitCode.MISSING_EXTRA


class ReplayMismatch(CodurError):
    """A replayed run asked a request its recording does not hold (the run diverged)."""

    exit_code = ExitCode.REPLAY_MISMATCH


class WorkspaceBusy(CodurError):
    """Another run that may change files holds the workspace's run lock (codur/locking.py)."""

    exit_code = ExitCode.BUSY


class CannotWrite(WorkspaceError):
    """A write failed for a reason of the machine, not of Codur: a read-only or unwritable
    folder, a full disk or quota (`cannot_write` tells them from other OSErrors)."""

    exit_code = ExitCode.CANNOT_WRITE


MACHINE_FAILURES = {
    errno.EROFS: "the file system is read-only",
    errno.ENOSPC: "no space left on the disk; free some and run again",
    errno.EDQUOT: "disk quota exceeded; free some space and run again",
}
"""The OSErrors that are the machine's condition wherever they come from."""
REFUSED_WRITES = {
    errno.EACCES: "permission denied (a read-only folder?)",
    errno.EPERM: "operation not permitted (a read-only folder?)",
}
"""The OSErrors that are the machine's condition only where Codur writes: elsewhere (a
file it cannot read, a program it cannot start) they may be a bug."""


def cannot_write(
    exc: BaseException, path: object = None, writing: bool = False
) -> CannotWrite | None:
    """`exc` as a CannotWrite (one line naming the file, `path` or the error's own, and
    the condition) when it is a read-only file system or a full disk, or (`writing`: it
    came from one of Codur's writes) a permission refused; None for anything else."""
    if isinstance(exc, CannotWrite):
        return exc
    if not isinstance(exc, OSError):
        return None
    said = MACHINE_FAILURES.get(exc.errno) or (REFUSED_WRITES.get(exc.errno) if writing else None)
    if said is None:
        return None
    named = path if path is not None else exc.filename
    where = f" {named}" if named is not None else ""
    return CannotWrite(f"cannot write{where}: {said}")


class Interrupted(KeyboardInterrupt):
    """Codur was asked to stop: Ctrl-C (SIGINT), SIGTERM, SIGHUP, or its standard output
    was closed (SIGPIPE's number, though no signal is involved). Every program is killed,
    scratch copies and MCP servers are cleaned up and the run's end record is written
    before the exit code 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def quiet(self) -> bool:
        """Nothing to say on a closed output (and nowhere to say it on stdout)."""
        return self.signum == signal.SIGPIPE


class Cancelled(Interrupted):
    """The Python API's run was cancelled (`Agent.arun`'s task): it stops at its next
    node, model call or program, as on Ctrl-C (its programs killed, a model call under way
    cut, its end record written with status `interrupted`), though no signal is involved
    and other runs of the process go on."""

    def __init__(self) -> None:
        KeyboardInterrupt.__init__(self, "cancelled")
        self.signum = signal.SIGINT
