"""Preferences never push a prompt past the context: one is at most
memory.max_preference_chars (refused longer; cut in prompts when a hand-edited file holds
a longer one), and past memory.max_preference_prompt_chars in all the oldest are left
out of prompts, the prompt saying how many."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import BUGGY, run_cli, scripted_profile
from test_memory import PLAN_PREFERENCE, PRE_PLAN_UNSURE, PREFERENCE, events

from codur.config.sections import MemoryConfig
from codur.memory.persistent import Memory
from codur.memory.store import project_file


@pytest.mark.slow
def test_a_preference_longer_than_the_cap_is_refused_everywhere(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    (work / "main.py").write_text(BUGGY)
    long = "always " + "x" * 400
    added = run_cli(["memory", "add", long], work)
    assert added.returncode == 2, added.stdout + added.stderr
    assert "a preference is at most 400 characters" in added.stderr
    assert len(added.stderr.strip().splitlines()) == 1
    assert not project_file(work).exists() or "x" * 400 not in project_file(work).read_text()
    widened = run_cli(["memory", "add", long, "-o", "memory.max_preference_chars=500"], work)
    assert widened.returncode == 0, widened.stderr

    # the planner's preference route: a too-long preference is an invalid decision, asked again
    too_long = json.dumps({"action": "preference", "preference": "use " + "y" * 400})
    script = scripted_profile(tmp_path, [PRE_PLAN_UNSURE, too_long, PLAN_PREFERENCE], "r")
    done = run_cli([*script, "--json", "always add type hints"], work)
    assert done.returncode == 0, done.stdout + done.stderr
    invalid = [e for e in events(done.stdout) if e["event"] == "plan.invalid"]
    assert "a preference is at most 400 characters" in invalid[0]["error"]
    kept = [p["text"] for p in json.loads(project_file(work).read_text())["preferences"]]
    assert kept == [long, PREFERENCE]


def test_prompts_get_the_newest_preferences_that_fit_and_are_told_of_the_rest(
    tmp_path: Path,
) -> None:
    user = tmp_path / "user.json"  # the user's own file: read by every run, hand-edited here
    listed = [
        {"key": f"pref-{n}", "text": f"rule {n} " + "z" * 90, "added": f"2026-01-{n + 10:02d}"}
        for n in range(10)
    ]
    listed.append({"key": "pref-huge", "text": "w" * 5000, "added": "2026-02-01"})
    user.write_text(json.dumps({"preferences": listed}))
    config = MemoryConfig(max_preference_chars=200, max_preference_prompt_chars=700)
    warnings: list[str] = []
    memory = Memory.open(tmp_path / "w", config, warnings.append, user=user)
    assert memory is not None and not warnings
    shown = memory.preferences()
    assert shown[-1] == "(5 older preference(s) not shown: the prompt has no room)"
    texts = shown[:-1]
    assert sum(map(len, texts)) <= 700
    assert texts[-1] == "w" * 197 + "..."  # the newest, cut to the cap
    assert [t.split()[1] for t in texts[:-1]] == ["5", "6", "7", "8", "9"]  # newest first
    everything = MemoryConfig()
    memory = Memory.open(tmp_path / "w", everything, warnings.append, user=user)
    assert memory is not None and len(memory.preferences()) == 11  # nothing left out


def test_a_secret_in_a_preference_never_reaches_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.workspace import Workspace

    secret = "sk-live-0123456789abcdef"
    monkeypatch.setenv("DEPLOY_API_KEY", secret)
    root = tmp_path / "w"
    root.mkdir()
    config = load_config(root, environ={}).config
    memory = Memory.open(root, config.memory, print, user=tmp_path / "user.json")
    assert memory is not None
    memory.remember_preference(f"deploy with the key {secret} when asked")
    session = Session(config, Workspace(root), EventBus(), memory=memory)
    assert session.preferences() == ["deploy with the key *** when asked"]
