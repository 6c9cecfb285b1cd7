"""Run a program with a timeout, an output cap and a memory cap; never hang, never flood.

Every program goes through `run_process`, inside a `Sandbox` (codur/sandbox): scrubbed
environment, own session and process group, confined writes where available, and every
descendant killed when it ends, on timeout, on an output flood or when Codur stops. Its
output comes back with every known secret masked (`codur.redaction`).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codur.errors import Cancelled, Interrupted
from codur.redaction import Redactor
from codur.sandbox import Sandbox
from codur.sandbox.reaper import REAPER, kill_tree

CHUNK = 65536
CANCEL_POLL_S = 0.1
"""How often a program's wait looks whether the run was cancelled."""


@dataclass(frozen=True)
class ProcessResult:
    command: list[str]
    exit_code: int | None
    """None when the process was killed (timeout or output cap)."""
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    truncated: bool = False
    """Output went past the cap: the process was stopped and the rest discarded."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.truncated


def run_process(
    command: list[str],
    cwd: Path,
    timeout_s: float,
    output_limit: int,
    memory_limit: int | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    sandbox: Sandbox | None = None,
    writable: Sequence[Path] = (),
) -> ProcessResult:
    """Run `command` in `cwd` inside `sandbox` (default: secrets removed from the
    environment, not confined). `env`: variables set on top of the sandbox's environment;
    `writable`: folders a confined program may write besides `cwd` and its temp folder."""
    start = time.perf_counter()
    box = sandbox or Sandbox()
    if box.cancel is not None and box.cancel.is_set():
        raise Cancelled()
    with box.launch(command, cwd, env or {}, writable, memory_limit) as launch:
        proc = REAPER.spawn(
            launch.tag,
            args=launch.argv,
            cwd=cwd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=launch.env,
            preexec_fn=launch.preexec,
        )
        buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
        flooded = threading.Event()

        def pump(name: str) -> None:
            stream = getattr(proc, name)
            buf = buffers[name]
            while chunk := stream.read1(CHUNK):
                room = output_limit - len(buf)
                buf.extend(chunk[: max(room, 0)])
                if len(chunk) > room:
                    flooded.set()
                    kill_tree(proc.pid, launch.tag)
                    return

        def feed() -> None:
            try:
                proc.stdin.write((stdin or "").encode())  # type: ignore[union-attr]
                proc.stdin.close()  # type: ignore[union-attr]
            except BrokenPipeError:
                pass  # the program exited without reading its input; its output tells

        threads = [threading.Thread(target=pump, args=(n,), daemon=True) for n in buffers]
        if stdin is not None:
            threads.append(threading.Thread(target=feed, daemon=True))
        try:
            for t in threads:
                t.start()
            ending = _wait(proc, timeout_s, box.cancel)
        finally:  # ended, timed out, or Codur stopping: nothing of it survives
            REAPER.end(launch.tag, proc)
        for t in threads:
            t.join(timeout_s)  # the pipes closed with the last process that held them
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if ending == "cancelled":
        raise Cancelled()
    if REAPER.stopped_by is not None:  # killed as Codur stops: no result of its own
        raise Interrupted(REAPER.stopped_by)
    timed_out = ending == "timeout"
    killed = timed_out or flooded.is_set()
    shown = Redactor()  # a secret it printed (a .env value) reaches no prompt, log or line
    return ProcessResult(
        command=command,
        exit_code=None if killed else proc.returncode,
        stdout=shown.text(buffers["stdout"].decode("utf-8", errors="replace")),
        stderr=shown.text(buffers["stderr"].decode("utf-8", errors="replace")),
        duration_s=round(time.perf_counter() - start, 3),
        timed_out=timed_out,
        truncated=flooded.is_set(),
    )


def _wait(
    proc: subprocess.Popen[bytes], timeout_s: float, cancel: threading.Event | None
) -> Literal["ended", "timeout", "cancelled"]:
    """Wait for `proc` to end, or `timeout_s` to pass, or the run to be cancelled (`cancel`
    set; looked at every CANCEL_POLL_S), whichever comes first."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        try:
            proc.wait(timeout=max(0, left if cancel is None else min(left, CANCEL_POLL_S)))
            return "ended"
        except subprocess.TimeoutExpired:
            if cancel is not None and cancel.is_set():
                return "cancelled"
            if time.monotonic() >= deadline:
                return "timeout"
