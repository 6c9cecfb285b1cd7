"""Finding the code in a big repository, whole runs: the coder is shown the function that
matters, not the whole 1,500-line file; its function-level reply merges into the big
file; a task that names no file finds the file and the tests stay as they are. A
generated package (tests/bigrepo.py), real pytest runs, a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import bigrepo
import pytest
from helpers import run_cli, run_in_process, scripted_profile
from test_graph import PLAN

FIX = f"The grace period includes its last day.\n\nledger/rates.py\n```python\n{bigrepo.FIXED}```\n"
SLOW = ["verify.timeout_s=300", "verify.relevant_tests_only=false"]
"""The whole suite after each change (the failing test imports the big module only
through another), with room for a loaded machine."""


@pytest.mark.slow
def test_a_big_file_named_with_at_is_shown_as_the_function_that_matters(tmp_path: Path) -> None:
    files = bigrepo.files()
    root = bigrepo.write(tmp_path / "repo")
    task = f"fix @ledger/rates.py: {bigrepo.FAILING} fails"
    # one agent and a file named: the task routes to the coder without a planner call
    result, events, _ = run_in_process(root, [FIX], task=task, overrides=SLOW)
    assert result.status == "verified", result.message
    (request,) = [e.data for e in events if e.kind == "model.request"]
    prompt = request["messages"][-1]["content"]
    assert bigrepo.BUGGY.strip() in prompt  # the function the failing test reaches
    assert "GRACE_DAYS = 10" in prompt and "from ledger.money import round_cents" in prompt
    assert "fixed = 1.00 * count" not in prompt  # wire_basic_fee's body: not the whole file
    assert len(prompt) < len(files["ledger/rates.py"]) / 5
    assert "ledger/rates.py is shown in part" in prompt and "# ... lines " in prompt
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)


@pytest.mark.slow
def test_a_reply_that_copies_the_file_as_shown_is_stopped_and_asked_again(
    tmp_path: Path,
) -> None:
    """A small model asked for the changed functions of a file shown in part often copies
    the view, left-out-lines lines and all, for thousands of tokens: the call stops at the
    first such line, nothing is applied, and the next attempt is told why."""
    root = bigrepo.write(tmp_path / "repo")
    files = bigrepo.files()
    head = files["ledger/rates.py"].split("\n")[:2]
    # as the server gives it back: stopped at (and without) the first left-out-lines line
    copied = "I fix it.\n\nledger/rates.py\n```python\n" + "\n".join(head)
    task = f"fix @ledger/rates.py: {bigrepo.FAILING} fails"
    overrides = [*SLOW, "sampling.candidates=0", "repair.enabled=false"]
    overrides.append("llm.profiles.s.agent_tools=false")  # as the embedded model: no tools
    result, events, _ = run_in_process(root, [copied, FIX], task=task, overrides=overrides)
    assert result.status == "verified", result.message
    first, second = [e.data for e in events if e.kind == "model.request"]
    assert "\n# ... line" in first["stop"]
    (copy_event,) = [e.data for e in events if e.kind == "agent.copied_view"]
    assert copy_event["budget"] > copy_event["tokens"] > 0  # the reply's own length
    said = "\n".join(str(m["content"]) for m in second["messages"])
    assert "began to copy the file as it was shown" in said
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)


@pytest.mark.slow
def test_a_changed_function_before_the_copy_is_applied_one_cut_short_is_not(
    tmp_path: Path,
) -> None:
    """The reply gives the function it changes, complete, then goes on copying the view:
    that function is the edit (verified in one call). One that gives a function's head
    and then a left-out-lines line is not applied."""
    root = bigrepo.write(tmp_path / "repo")
    files = bigrepo.files()
    head = "\n".join(files["ledger/rates.py"].split("\n")[:2])
    copied = f"I fix it.\n\nledger/rates.py\n```python\n{head}\n\n\n{bigrepo.FIXED}"
    task = f"fix @ledger/rates.py: {bigrepo.FAILING} fails"
    overrides = [*SLOW, "sampling.candidates=0", "repair.enabled=false"]
    overrides.append("llm.profiles.s.agent_tools=false")
    result, events, _ = run_in_process(root, [copied], task=task, overrides=overrides)
    assert result.status == "verified" and result.model_calls == 1, result.message
    (copy_event,) = [e.data for e in events if e.kind == "agent.copied_view"]
    assert copy_event["salvaged"] == ["ledger/rates.py"]
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)

    root = bigrepo.write(tmp_path / "again")
    stub = bigrepo.FIXED.split("\n")[0] + '\n    """Late fee."""\n'
    short = f"I fix it.\n\nledger/rates.py\n```python\n{head}\n\n\n{stub}"
    result, events, _ = run_in_process(root, [short, FIX], task=task, overrides=overrides)
    assert result.status == "verified" and result.model_calls == 2, result.message
    (copy_event,) = [e.data for e in events if e.kind == "agent.copied_view"]
    assert copy_event["salvaged"] == []
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)


@pytest.mark.slow
def test_a_task_that_names_no_file_finds_the_code_and_keeps_the_tests(tmp_path: Path) -> None:
    """`codur "tests/...::test_y fails, fix it"`: the failing test's calls lead to
    `late_fee` in the big module; the reply's change to the test is refused."""
    root = bigrepo.write(tmp_path / "repo")
    files = bigrepo.files()
    cheat = "tests/test_statement.py\n```python\ndef test_no_fee_within_grace():\n    pass\n```\n"
    replies = [
        json.dumps({"kind": "task", "confidence": 0.5}),
        PLAN,
        FIX + "\n" + cheat,
    ]
    flags = [f for o in SLOW for f in ("-o", o)]
    record = tmp_path / "calls.jsonl"
    done = run_cli(
        [*scripted_profile(tmp_path, replies), *flags, "--record", str(record), "--json"]
        + [f"{bigrepo.FAILING} fails, fix it"],
        root,
        timeout=900,
    )
    end = [json.loads(line) for line in done.stdout.splitlines()][-1]
    assert end["event"] == "run.end" and end["status"] == "verified", done.stderr
    assert done.returncode == 0
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    prompt = [c for c in calls if "request" in c][2]["request"]["messages"][-1]["content"]
    assert "ledger/statement.py\n```python" in prompt  # the function the test calls, whole
    assert bigrepo.BUGGY.strip() in prompt and "fixed = 1.00 * count" not in prompt
    after = (root / "ledger/rates.py").read_text()
    assert after == files["ledger/rates.py"].replace(bigrepo.BUGGY, bigrepo.FIXED)
    assert (root / "tests/test_statement.py").read_text() == files["tests/test_statement.py"]


def test_a_reply_for_a_file_not_shown_merges_into_it(tmp_path: Path) -> None:
    """A function given for an existing file the prompt did not show replaces that
    function only, not the whole file."""
    from codur.agents.proposal import read_reply
    from codur.config import load_config
    from codur.events import EventBus
    from codur.session import Session
    from codur.workspace import Workspace

    root = bigrepo.write(tmp_path / "repo")
    session = Session(load_config(root, environ={}).config, Workspace(root), EventBus())
    proposal = read_reply(FIX, {}, "whole_file", session, truncated=False)
    assert proposal.error is None
    original = bigrepo.files()["ledger/rates.py"]
    assert proposal.sources == {"ledger/rates.py": original.replace(bigrepo.BUGGY, bigrepo.FIXED)}


@pytest.mark.slow
def test_a_named_big_file_whose_found_function_is_too_long_is_still_shown_in_part(
    tmp_path: Path,
) -> None:
    """A function longer than context.whole_file_lines is not shown whole among the found
    ones; where it is all that was found in a file the task names, the file is shown in
    part with it (the prompt builder leaves the file out if even that does not fit), not
    whole."""
    files = bigrepo.files()
    root = bigrepo.write(tmp_path / "repo")
    task = f"fix @ledger/rates.py: {bigrepo.FAILING} fails"
    overrides = [*SLOW, "context.whole_file_lines=4"]  # late_fee is longer than 4 lines
    result, events, _ = run_in_process(root, [FIX], task=task, overrides=overrides)
    assert result.status == "verified", result.message
    (request,) = [e.data for e in events if e.kind == "model.request"]
    prompt = request["messages"][-1]["content"]
    assert bigrepo.BUGGY.strip() in prompt and "ledger/rates.py is shown in part" in prompt
    assert "fixed = 1.00 * count" not in prompt  # wire_basic_fee's body: not the whole file
    assert len(prompt) < len(files["ledger/rates.py"]) / 2
