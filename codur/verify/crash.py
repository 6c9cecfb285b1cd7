"""Did a script end in an uncaught exception? The static checks run the scripts a task
names (stdin closed, a few seconds) when nothing else can check them: a crash is a fact
about the program that needs no expected output. Only Python's own report of an
uncaught exception counts; a script that waits for input (EOFError on closed stdin), is
still running at the limit, or exits with an error of its own (argparse's usage, a
`sys.exit(1)`) is not judged."""

from __future__ import annotations

from codur.process import ProcessResult

TRACEBACK = "Traceback (most recent call last):"
NOT_JUDGED = ("EOFError", "KeyboardInterrupt")
"""Exceptions a script raises for want of a user: input() on closed stdin, Ctrl-C."""
SHOWN = 1500
"""Characters of the traceback kept (its end: the exception and the frames before it)."""


def uncaught(result: ProcessResult) -> str:
    """The end of the traceback of `result`'s uncaught exception; empty when there is
    none to judge."""
    if result.timed_out or result.exit_code in (0, None) or TRACEBACK not in result.stderr:
        return ""
    report = result.stderr[result.stderr.rindex(TRACEBACK) :].strip()
    last = report.splitlines()[-1]
    if last.split(":", 1)[0].strip().endswith(NOT_JUDGED):
        return ""
    return report[-SHOWN:]
