"""Leaving the process without the interpreter's teardown (the CLI's last step).

Python's own exit waits for the threads that are not daemons (and shuts down the
executors that run them), runs the atexit functions, then tears down every module and
object. After a run that loaded the embedded model and LangChain, that teardown takes
~0.3 s (docs/benchmarks.md) and does nothing the kernel does not do when the process
ends, except flushing files left open for writing. `leave` does the first two steps,
flushes those files, and ends the process with `os._exit`.
"""

from __future__ import annotations

import atexit
import gc
import io
import os
import threading
from typing import NoReturn

from codur.errors import ExitCode

_IMMEDIATE = threading.Event()


def immediate() -> bool:
    """Whether the process is ending by `leave`: an atexit function need not wait for
    work on other threads that nothing reads (`os._exit` ends them where they stand, and
    no finaliser or library destructor runs after it)."""
    return _IMMEDIATE.is_set()


def leave(code: int) -> NoReturn:
    """End the process with exit code `code`, as `sys.exit` would minus the teardown."""
    from codur.interrupt import exit_at_once_on_signals

    exit_at_once_on_signals()  # a Ctrl-C now ends the process, with no traceback
    _IMMEDIATE.set()
    threading._shutdown()  # type: ignore[attr-defined] # what the interpreter's exit calls
    atexit._run_exitfuncs()
    try:
        flush_open_files()
    except BrokenPipeError:  # the reader of stdout is gone: as the CLI says it
        code = code or ExitCode.OUTPUT_CLOSED
    os._exit(code)


def flush_open_files() -> None:
    """Flush every file object still open for writing: text layers first, then the
    buffers under them (the order the teardown's finalisers would leave them in)."""
    files = [f for f in gc.get_objects() if isinstance(f, io.IOBase)]
    for kind in (io.TextIOBase, io.BufferedIOBase):
        for file in files:
            if isinstance(file, kind) and _open_for_writing(file):
                file.flush()


def _open_for_writing(file: io.IOBase) -> bool:
    try:
        return not file.closed and file.writable()
    except ValueError:  # a text layer whose buffer was detached: nothing of its own to flush
        return False
