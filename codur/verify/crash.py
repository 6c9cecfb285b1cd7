"""Did a script end in an uncaught exception? The static checks run the scripts the task
names (stdin closed, a few seconds) when nothing else can check them: a crash is a fact
about the program that needs no expected output. Only Python's own report of an
uncaught exception counts, and not one that comes from where the check runs it rather
than from the code: no arguments (`sys.argv[1]`), no environment variable, closed stdin
(EOFError), the sandbox or no network (OSError and its kin), a module it cannot import
there (ImportError). A script still running at the limit, or exiting with an error of
its own (argparse's usage, `sys.exit(1)`), is not judged either."""

from __future__ import annotations

import re

from codur.process import ProcessResult

TRACEBACK = "Traceback (most recent call last):"
_ENVIRONMENT = (
    "EOFError KeyboardInterrupt ImportError ModuleNotFoundError OSError IOError "
    "EnvironmentError PermissionError FileNotFoundError FileExistsError IsADirectoryError "
    "NotADirectoryError ConnectionError ConnectionRefusedError ConnectionResetError "
    "ConnectionAbortedError BrokenPipeError TimeoutError BlockingIOError InterruptedError "
    "ProcessLookupError ChildProcessError gaierror herror timeout URLError HTTPError "
    "SSLError"
)
ENVIRONMENT = frozenset(_ENVIRONMENT.split())
"""Exceptions the check's surroundings raise (the last part of a dotted name counts)."""
INPUTS = re.compile(r"sys\.argv|os\.environ|getenv")
"""An IndexError or KeyError whose traceback shows a line reading these comes for want
of what the check does not give."""
SHOWN = 1500
"""Characters of the traceback kept (its end: the exception and the frames before it)."""


def uncaught(result: ProcessResult) -> str:
    """The end of the traceback of `result`'s uncaught exception; empty when there is
    none to judge."""
    if result.timed_out or result.exit_code in (0, None) or TRACEBACK not in result.stderr:
        return ""
    report = result.stderr[result.stderr.rindex(TRACEBACK) :].strip()
    name = report.splitlines()[-1].split(":", 1)[0].strip().rsplit(".", 1)[-1]
    if name in ENVIRONMENT:
        return ""
    if name in ("IndexError", "KeyError") and INPUTS.search(report):  # its frames' lines
        return ""
    return report[-SHOWN:]
