"""Prompt states saved across runs (codur.models.local_prefix): which entry a prompt
loads, the folder's budget, and, with the real embedded model in new processes, that a
second run loads the first one's state instead of evaluating the shared prompt again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from helpers import embedded_model_unavailable

from codur.models.local_prefix import MIN_GAIN, PrefixStore, common_prefix


def entry(folder: Path, name: str, tokens: list[int], size: int = 10, age: float = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    state = folder / f"{name}.kv"
    state.write_bytes(b"\0" * size)
    np.asarray(tokens, dtype=np.int32).tofile(folder / f"{name}.tokens")
    when = time.time() - age
    os.utime(state, (when, when))
    return state


def test_common_prefix_counts_the_shared_leading_tokens() -> None:
    a = np.asarray([1, 2, 3, 4], dtype=np.int32)
    assert common_prefix(a, np.asarray([1, 2, 9], dtype=np.int32)) == 2
    assert common_prefix(a, a[:3]) == 3
    assert common_prefix(a, np.asarray([7], dtype=np.int32)) == 0


def test_the_entry_sharing_the_most_is_chosen_when_it_spares_enough(tmp_path: Path) -> None:
    prompt = list(range(1000))
    store = PrefixStore(tmp_path, 10**9)
    entry(tmp_path, "short", prompt[:200] + [-1])
    long = entry(tmp_path, "long", prompt[:700] + [-1, -2])
    entry(tmp_path, "other", [5] * 900)

    assert store.best(prompt, held=0) == long
    assert store.best(prompt, held=700 - MIN_GAIN) == long
    assert store.best(prompt, held=700 - MIN_GAIN + 1) is None  # the cache holds nearly as much


def test_a_half_written_entry_is_not_seen(tmp_path: Path) -> None:
    state = entry(tmp_path, "whole", list(range(300)))
    (tmp_path / "half.kv").write_bytes(b"\0")  # its tokens not written yet
    np.arange(300, dtype=np.int32).tofile(tmp_path / "orphan.tokens")  # its state removed

    assert [s for s, _ in PrefixStore(tmp_path, 10**9).entries()] == [state]


def test_the_least_recently_used_entries_go_past_the_budget(tmp_path: Path) -> None:
    old = entry(tmp_path, "old", [1] * 100, size=400, age=300)
    middle = entry(tmp_path, "middle", [2] * 100, size=400, age=200)
    new = entry(tmp_path, "new", [3] * 100, size=400, age=100)

    PrefixStore(tmp_path, 900).trim()

    assert new.exists() and middle.exists()
    assert not old.exists() and not old.with_suffix(".tokens").exists()


PROBE = """
import json, sys
from codur.models.local import build
from langchain_core.messages import HumanMessage, SystemMessage
sys.path.insert(0, sys.argv[1])
from helpers import embedded_profile
update = {"temperature": 0.0, "prefix_cache_mb": 64, "model_file": sys.argv[4]}
profile = embedded_profile(4).model_copy(update=update)
model = build("local", profile)
text = open(sys.argv[2]).read()
reply = model.invoke([SystemMessage("You review code."), HumanMessage(text + sys.argv[3])])
print(json.dumps({**reply.response_metadata, **reply.usage_metadata}))
"""


def probe(tmp_path: Path, question: str) -> dict:
    """One call in a new process whose user cache folder is in `tmp_path` (the weights
    are read where they are: only the saved states go there)."""
    from helpers import embedded_profile

    from codur.models.local import model_path

    weights = model_path(embedded_profile(4))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    source = Path(__file__).resolve().parents[1] / "codur" / "models" / "local_prefix.py"
    tests = str(Path(__file__).resolve().parent)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, tests, str(source), question, weights],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def kv_files(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("*.kv"))


@pytest.mark.embedded
def test_a_new_run_loads_the_saved_state_of_a_prompt_that_starts_the_same(tmp_path: Path) -> None:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    first = probe(tmp_path, "\n\nSummarize it.")
    assert first["input_token_details"]["cache_read"] == 0 and "prefix_restored" not in first
    assert len(kv_files(tmp_path)) == 1

    second = probe(tmp_path, "\n\nName one risk.")

    shared = second["input_token_details"]["cache_read"]
    assert second["prefix_restored"] > shared > second["input_tokens"] - 10
    assert second["input_tokens"] > 1000


@pytest.mark.embedded
def test_an_unreadable_state_is_removed_and_the_call_still_answers(tmp_path: Path) -> None:
    if reason := embedded_model_unavailable():
        pytest.skip(reason)
    probe(tmp_path, "\n\nSummarize it.")
    [state] = kv_files(tmp_path)
    state.write_bytes(state.read_bytes()[:1000])  # cut short, as a full disk would

    reply = probe(tmp_path, "\n\nName one risk.")

    assert "could not load" in reply["prefix_cache_error"]
    assert reply["input_token_details"]["cache_read"] == 0
    assert reply["output_tokens"] > 0
    assert not state.exists()  # dropped; the call saved its own state under another name
