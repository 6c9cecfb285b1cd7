"""The shell tool (`run_command`): one command line, run by `sh -c` from the
workspace root.

It is running a program, so the approval gate decides first (asked in suggest and
auto-edit mode; with nobody to ask the run stops). It is never "the check itself": a
verifier's context asks like any other. The command runs through `ToolContext.run`: the
run's sandbox (scrubbed environment, own process group, confined writes where
available), the tools' output and memory caps, and a timeout from the tools config that
the model may shorten but not lengthen.
"""

from __future__ import annotations

import shutil

from codur.tools.context import Ctx, ToolError
from codur.tools.python import RunReport, stopped_reason
from codur.tools.registry import TaskType, register_tool


def _shell() -> str:
    return shutil.which("sh") or "/bin/sh"


@register_tool(TaskType.CODE_VALIDATION)
def run_command(ctx: Ctx, command: str, timeout_s: float | None = None) -> RunReport:
    """Run a shell command from the workspace root; returns its exit code and output.
    The workspace's .git is read-only for it (git add, commit, stash and checkout fail):
    the git tools stage and commit, restore_file takes back a file's changes.

    Args:
        command: The command line, run by `sh -c` (pipes and redirections work).
        timeout_s: Seconds before it is stopped; at most (and by default)
            tools.command_timeout_s.
    """
    if not command.strip():
        raise ToolError("the command is empty")
    limit = ctx.config.command_timeout_s
    if timeout_s is not None and timeout_s <= 0:
        raise ToolError(f"timeout_s must be positive, not {timeout_s:g}")
    timeout = min(timeout_s, limit) if timeout_s is not None else limit
    ctx.approve_run(f"run `{command}`", shell=True)
    run = ctx.run([_shell(), "-c", command], timeout)
    stopped = stopped_reason(ctx, run, timeout)
    return RunReport(
        command,
        run.exit_code,
        run.stdout,
        run.stderr,
        run.duration_s,
        stopped,
        raw_stdout=run.raw_stdout,
        raw_stderr=run.raw_stderr,
    )
