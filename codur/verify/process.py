"""Run a program with a timeout, an output cap and a memory cap; never hang, never flood."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

CHUNK = 65536


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


def _limit_memory(max_bytes: int | None) -> None:
    if max_bytes and sys.platform != "win32":
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))


def run_process(
    command: list[str],
    cwd: Path,
    timeout_s: float,
    output_limit: int,
    memory_limit: int | None = None,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> ProcessResult:
    """Run `command` in `cwd`. Killed (with its process group) on timeout or output flood.
    `env`: variables set on top of this process's environment."""
    start = time.perf_counter()
    env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
        preexec_fn=(lambda: _limit_memory(memory_limit)) if memory_limit else None,
    )
    buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    flooded = threading.Event()

    def pump(name: str) -> None:
        stream = getattr(proc, name)
        buf = buffers[name]
        while chunk := stream.read1(CHUNK) if hasattr(stream, "read1") else stream.read(CHUNK):
            room = output_limit - len(buf)
            buf.extend(chunk[: max(room, 0)])
            if len(chunk) > room:
                flooded.set()
                _kill(proc)
                return

    threads = [threading.Thread(target=pump, args=(n,), daemon=True) for n in buffers]
    for t in threads:
        t.start()
    if stdin is not None and proc.stdin:
        try:
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass  # the program exited without reading its input; its output tells the story
    timed_out = False
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(proc)
        proc.wait()
    except KeyboardInterrupt:
        _kill(proc)  # don't leave the user's program running after Ctrl-C
        raise
    for t in threads:
        t.join(timeout=5)
    killed = timed_out or flooded.is_set()
    return ProcessResult(
        command=command,
        exit_code=None if killed else proc.returncode,
        stdout=buffers["stdout"].decode("utf-8", errors="replace"),
        stderr=buffers["stderr"].decode("utf-8", errors="replace"),
        duration_s=round(time.perf_counter() - start, 3),
        timed_out=timed_out,
        truncated=flooded.is_set(),
    )


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(proc.pid, signal.SIGKILL)
