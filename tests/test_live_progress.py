"""Never silent: while a model answers, a check's program runs or the repair search
searches, a terminal shows a live line, --verbose streams the reply, and --json emits
`model.progress` events, at most one a second. The real CLI, with a scripted model that
streams its reply slowly (`token_delay_s`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fake_servers import OllamaServer, Reply
from helpers import BUGGY, FIXED, ROOT, buggy_folder, run_cli, scripted_profile, whole_file
from langchain_core.messages import HumanMessage
from terminal import Terminal

from codur.config.schema import LLMProfile
from codur.events import EventBus
from codur.models.client import ModelClient
from codur.models.progress import CallProgress

SLOW = 0.1
"""Seconds before each streamed word: the reply below takes about 4 s."""
REPLY = whole_file("main.py", FIXED)


def slow_model(tmp_path: Path, *extra: str) -> list[str]:
    return [
        *scripted_profile(tmp_path, [REPLY]),
        "-o",
        f"llm.profiles.s.token_delay_s={SLOW}",
        *extra,
    ]


def terminal_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "TERM": "xterm"}


@pytest.mark.slow
def test_a_terminal_shows_the_model_call_live(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    term = Terminal([*slow_model(tmp_path), "fix @main.py"], work, terminal_env())
    term.expect("model s #1: ")
    shown = term.expect(" tokens/s")  # the reply's tokens so far and their rate
    assert " tokens, " in shown
    term.expect("verified")
    assert term.close() == 0
    assert (work / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_json_progress_events_come_at_most_once_a_second(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    done = run_cli([*slow_model(tmp_path), "--json", "fix @main.py"], cwd=work)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    request = next(e for e in events if e["event"] == "model.request")
    response = next(e for e in events if e["event"] == "model.response")
    progress = [e for e in events if e["event"] == "model.progress"]
    assert len(progress) >= 2  # a 4 s reply: some progress while it came
    elapsed = response["ts"] - request["ts"]
    assert len(progress) <= elapsed + 1  # at most one a second, by the events' own clock
    gaps = [b["ts"] - a["ts"] for a, b in zip([request, *progress], progress, strict=False)]
    assert min(gaps) >= 0.9  # ts is rounded to ms; the throttle counts whole seconds
    assert [p["tokens"] for p in progress] == sorted(p["tokens"] for p in progress)
    streamed = "".join(p["text"] for p in progress)
    assert streamed and REPLY.startswith(streamed)  # the reply's text, in order, once


@pytest.mark.slow
def test_verbose_streams_the_reply(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    done = run_cli([*slow_model(tmp_path), "-v", "fix @main.py"], cwd=work)
    assert done.returncode == 0, done.stderr
    # the reply as it came, lines and all (the model.response line squeezes it on one line)
    assert "    for i in range(len(xs)):\n        s += xs[i]\n" in done.stdout


@pytest.mark.slow
def test_a_terminal_shows_a_long_check_live(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    slow = "import time\ntime.sleep(2.5)\n"
    (work / "main.py").write_text(slow + BUGGY)
    (work / "expected.txt").write_text("10\n")
    script = [whole_file("main.py", slow + FIXED)]
    term = Terminal([*scripted_profile(tmp_path, script), "fix @main.py"], work, terminal_env())
    shown = term.expect("main.py: 1 s")  # the check's program, running for a second
    assert "running " in shown
    term.expect("verified")
    assert term.close() == 0


@pytest.mark.slow
def test_a_terminal_shows_the_repair_search_live(tmp_path: Path) -> None:
    work = buggy_folder(tmp_path / "w")
    flags = scripted_profile(tmp_path, [], repair=True)  # the search fixes it: no model call
    term = Terminal([*flags, "fix @main.py"], work, terminal_env())
    shown = term.expect(" candidates tried")
    assert "repair search: " in shown
    term.expect("verified")
    assert term.close() == 0
    assert (work / "main.py").read_text() == FIXED


def test_the_ollama_stream_counts_its_chunks(ollama_server: OllamaServer) -> None:
    """Ollama streams (the fake server word by word): each chunk is a token so far."""
    ollama_server.script(Reply("first half, second half"))
    profile = LLMProfile(provider="ollama", model="m", base_url=ollama_server.url, timeout_s=5)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    client = ModelClient("o", profile, bus, progress_every_s=0)
    client.invoke([HumanMessage("hi")])
    progress = [e.data for e in events if e.kind == "model.progress"]
    assert [p["tokens"] for p in progress if p["text"]] == [1, 2, 3, 4]
    assert "".join(p["text"] for p in progress) == "first half, second half"


def test_progress_waits_a_second_between_events() -> None:
    """CallProgress itself: nothing before a second has passed, then one event a second
    at most whatever the provider reports meanwhile; the prompt before the reply."""
    now = [0.0]
    sent: list[dict[str, Any]] = []
    progress = CallProgress(lambda **d: sent.append(d), 1.0, clock=lambda: now[0])
    for step in range(40):  # 4 s of reports every 0.1 s
        now[0] = step / 10
        if step < 15:
            progress.prompt(step * 10, 150)
        else:
            progress.reply(step - 14, "x" * (step - 14))
    assert [d["elapsed_s"] for d in sent] == [1.0, 2.0, 3.0]
    assert sent[0]["prompt_done"] == 100 and "tokens" not in sent[0]
    assert sent[1]["tokens"] == 6 and sent[1]["text"] == "x" * 6
    assert sent[2]["tokens"] == 16 and sent[2]["text"] == "x" * 10  # only what is new
