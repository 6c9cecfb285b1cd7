"""`Agent.arun` cancelled: the run stops at its next node, model call or program, ends
`interrupted` in the debug log, lets go of the folder, and CancelledError is raised.
Real folders, real programs, a scripted model."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import BUGGY, FIXED, buggy_folder, debug_log, whole_file
from test_interrupt import marked

from codur import Agent
from codur.config import load_config
from codur.errors import Cancelled
from codur.events import EventBus
from codur.models.client import ModelClient
from codur.run import run_task
from codur.session import Session
from codur.workspace import Workspace

QUIET = ["repair.enabled=false", "sampling.candidates=0"]


def log_of(root: Path) -> list[dict[str, Any]]:
    """The run's debug log records (none before the log is made)."""
    log = debug_log(root)
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def cancelled_when(agent: Agent, ready: Callable[[], bool], after_s: float = 0) -> float:
    """Start `agent.arun` on the fix, cancel it `after_s` after `ready()` holds, and return
    how long the cancelled task took to end (with CancelledError, as it must)."""
    run = asyncio.create_task(agent.arun("fix @main.py"))
    while not ready():
        assert not run.done()
        await asyncio.sleep(0.05)
    await asyncio.sleep(after_s)
    start = time.monotonic()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    return time.monotonic() - start


def test_a_cancelled_arun_stops_its_program_ends_interrupted_and_lets_go(
    tmp_path: Path,
) -> None:
    root = tmp_path / "w"
    root.mkdir()
    marker = f"codur-test-{uuid.uuid4().hex}"
    sleeper = (
        "import subprocess, sys\n"
        f"subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)  # {marker}'])\n"
        "print(10)\n"
    )
    (root / "main.py").write_text(sleeper)
    (root / "expected.txt").write_text("10\n")
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([whole_file("main.py", FIXED)]))
    agent = Agent(cwd=root, model="scripted/s", script=str(script), overrides=QUIET)

    # the run's first check: the program sleeps
    assert asyncio.run(cancelled_when(agent, lambda: marked(marker))) < 10  # not its 60 s
    assert not marked(marker)  # killed, with nothing left behind
    end = log_of(root)[-1]
    assert end["event"] == "run.end" and end["status"] == "interrupted"
    assert end["signal"] == "cancelled" and end["exit_code"] == 130
    assert (root / "main.py").read_text() == sleeper
    assert not [t for t in threading.enumerate() if t.name.startswith("asyncio")]

    (root / "main.py").write_text(BUGGY)  # the folder is free: the next run goes through
    result = agent.run("fix @main.py")
    assert result.is_verified and (root / "main.py").read_text() == FIXED


def scripted_fix(tmp_path: Path, *settings: str) -> list[str]:
    """Overrides for a scripted profile `s` (the default) whose one reply fixes main.py,
    with the profile's `settings` (`token_delay_s=2`)."""
    script = tmp_path / "script.yaml"
    script.write_text(yaml.safe_dump([whole_file("main.py", FIXED)]))
    flags = [f"llm.profiles.s.script={script}", "llm.profiles.s.provider=scripted"]
    return [*flags, *(f"llm.profiles.s.{s}" for s in settings), "llm.default_profile=s", *QUIET]


def test_a_cancelled_run_stops_before_its_next_node_and_model_call(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "w")
    overrides = scripted_fix(tmp_path)
    config = load_config(root, overrides=overrides, environ={}).config
    events: list[Any] = []
    bus = EventBus()
    bus.subscribe(events.append)
    session = Session(config, Workspace(root), bus)
    session.cancel.set()
    with pytest.raises(Cancelled):
        run_task(session, "fix @main.py")
    kinds = [e.kind for e in events]
    assert "node.start" not in kinds and "model.request" not in kinds
    assert session.snapshot is not None and session.snapshot.record.status == "interrupted"
    assert (root / "main.py").read_text() == BUGGY

    client: ModelClient = Session(config, Workspace(root), EventBus()).client()
    client.cancel.set()  # the session's: no call starts
    with pytest.raises(Cancelled):
        client.invoke([])
    assert client.usage.calls == 0


def test_a_cancelled_arun_cuts_a_slow_reply_under_way(tmp_path: Path) -> None:
    """Cancelled while the model writes (a scripted reply of 2 s a word): the reply is cut
    at its next word, as llama.cpp's is before its next decode, not waited for."""
    root = buggy_folder(tmp_path / "w")
    agent = Agent(cwd=root, overrides=scripted_fix(tmp_path, "token_delay_s=2"))

    asked = lambda: any(r["event"] == "model.request" for r in log_of(root))  # noqa: E731
    assert asyncio.run(cancelled_when(agent, asked, 0.5)) < 10  # its words take over 20 s
    end = log_of(root)[-1]
    assert end["event"] == "run.end" and end["status"] == "interrupted"
    assert (root / "main.py").read_text() == BUGGY
