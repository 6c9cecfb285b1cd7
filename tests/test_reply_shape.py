"""The coder's reply costs what the edit needs (issue 41, "generate less"): whole files for
a tiny file, changed functions for a big one, a token budget from the code in scope, a
stop sequence at the end of a one-block reply; a reply cut at that budget is handled."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_servers import OpenAIServer, Reply
from faults import codur, ended, openai_profile, records, workdir
from helpers import BUGGY, FIXED, scripted_profile, whole_file

from codur.agents.reply_shape import (
    COPIED,
    FENCE_END,
    PROSE_TOKENS,
    choose_format,
    close_fence,
    reply_budget,
    stop_sequences,
)

HELPERS = 40


def plain(flags: list[str], profile: str = "s") -> list[str]:
    """`flags` for a profile that offers the coder no tools (a stop sequence is only set
    for a reply that cannot be a tool call)."""
    return [*flags, "-o", f"llm.profiles.{profile}.agent_tools=false"]


def big_program(fixed: bool = False) -> str:
    """main.py with many small helpers before the buggy `total` and its driver."""
    helpers = "".join(
        f'def helper_{i}(value):\n    """Return value plus {i}."""\n    return value + {i}\n\n\n'
        for i in range(HELPERS)
    )
    return helpers + (FIXED if fixed else BUGGY)


TOTAL_FIXED = FIXED.split("\n\nprint")[0] + "\n"


def requests_of(work: Path) -> list[dict]:
    return [r for r in records(work) if r["event"] == "model.request"]


def responses_of(work: Path) -> list[dict]:
    return [r for r in records(work) if r["event"] == "model.response"]


def test_a_tiny_file_is_asked_whole_a_big_one_by_its_changed_functions() -> None:
    tiny = {"main.py": BUGGY}
    big = {"main.py": big_program()}
    assert choose_format(tiny, "whole_file", partial=False) == "whole_file"
    assert choose_format(big, "whole_file", partial=False) == "functions"
    assert choose_format(tiny, "whole_file", partial=True) == "functions"  # shown in part
    assert choose_format(big, "search_replace", partial=False) == "search_replace"
    # the budget follows the code in scope: the big file's changed functions cost about as
    # much as the whole tiny file, far less than the whole big file
    assert reply_budget(big, "functions") < reply_budget(big, "whole_file") / 5
    assert reply_budget(tiny, "whole_file") < 2 * PROSE_TOKENS
    assert reply_budget(big, "search_replace") > reply_budget(big, "functions")


def test_a_stop_sequence_only_where_the_reply_is_one_block() -> None:
    assert stop_sequences({"main.py": BUGGY}, "whole_file", False, {}) == (FENCE_END,)
    # a file shown in part: the reply stops where it begins to copy a left-out-lines line
    assert stop_sequences({"main.py": BUGGY}, "functions", True, {}) == (COPIED,)
    held = {"n.py": "X = 1\n# ... lines 3-4 not shown ...\n"}
    assert stop_sequences(held, "functions", True, held) == ()
    assert stop_sequences({"a.py": BUGGY, "b.py": BUGGY}, "whole_file", False, {}) == ()
    assert stop_sequences({"main.py": BUGGY}, "search_replace", False, {}) == ()
    fenced = {"doc.py": 'X = """\n```\n\nY\n```\n"""\n'}
    assert stop_sequences(fenced, "whole_file", False, {}) == ()
    cut = "Fixed.\nmain.py\n```python\nprint(1)\n"
    assert close_fence(cut) == cut + "```\n"
    assert close_fence(cut + "```\n") == cut + "```\n"


@pytest.mark.slow
def test_the_server_gets_the_format_budget_and_stop_for_the_file_at_hand(tmp_path: Path) -> None:
    """Over HTTP: the tiny file's reply is asked whole with a budget near its size and a
    stop at its block's end; the big file's by its changed functions, with a budget for
    them, not the whole file (an echo of the whole file is cut there, not applied, and
    the next reply's function is merged)."""
    server = OpenAIServer().start()
    srv = plain(openai_profile(server.base_url), "srv")
    try:
        (tmp_path / "tiny").mkdir()
        (tmp_path / "big").mkdir()
        tiny = workdir(tmp_path / "tiny")
        server.script(Reply(whole_file("main.py", FIXED)))
        ended(codur([*srv, "fix @main.py"], tiny, timeout=600), tiny, 0)
        (asked,) = [r.body for r in server.requests]
        task = asked["messages"][-1]["content"]
        assert "the COMPLETE corrected file" in task
        assert asked["stop"] == [FENCE_END]
        assert asked["max_tokens"] == reply_budget({"main.py": BUGGY}, "whole_file") < 400

        big = workdir(tmp_path / "big", {"main.py": big_program(), "expected.txt": "10\n"})
        copied = "Here it is.\nmain.py\n```python\n" + big_program()[:3000]
        echo = Reply(copied, finish_reason="length")
        server.script(echo, Reply(whole_file("main.py", TOTAL_FIXED, "Loop over every item.")))
        ended(codur([*srv, "fix @main.py"], big, timeout=600), big, 0)
    finally:
        server.stop()
    first, second = [r.body for r in server.requests[1:]]
    budget = reply_budget({"main.py": big_program()}, "functions")
    assert budget < 400 and first["max_tokens"] == second["max_tokens"] == budget
    assert "ONLY the functions or classes you changed" in first["messages"][-1]["content"]
    assert "COMPLETE corrected file" not in first["messages"][-1]["content"]
    assert first["stop"] == [FENCE_END]
    assert "cut off at the length limit" in second["messages"][-1]["content"]
    assert (big / "main.py").read_text() == big_program(fixed=True)


@pytest.mark.slow
def test_the_prose_after_the_code_is_never_generated(tmp_path: Path) -> None:
    """The stop sequence ends the reply at its block's end (the scripted model stops there
    as a server does); Codur closes the block and applies it."""
    prose = "\nThe loop skipped the last item; it now runs over every index of the list.\n"
    work = workdir(tmp_path)
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED) + prose])
    ended(codur([*plain(flags), "fix @main.py"], work, timeout=600), work, 0)
    (response,) = responses_of(work)
    assert "skipped the last item" not in response["content"]
    assert response["content"].endswith("print(total([1, 2, 3, 4]))\n")
    assert requests_of(work)[0]["stop"] == [FENCE_END]
    assert (work / "main.py").read_text() == FIXED


@pytest.mark.slow
def test_a_reply_cut_after_its_block_keeps_its_edit(tmp_path: Path) -> None:
    """A one-block reply cut at its budget in the prose after the block: the edit is whole
    and applied (one call), and the debug log says what was cut."""
    chatty = whole_file("main.py", FIXED).rstrip("\n") + "\nThis fixes it because the loop"
    work = workdir(tmp_path)
    flags = scripted_profile(tmp_path, [{"content": chatty, "finish_reason": "length"}])
    ended(codur([*plain(flags), "fix @main.py"], work, timeout=600), work, 0)
    assert (work / "main.py").read_text() == FIXED
    assert len(responses_of(work)) == 1
    (note,) = [r for r in records(work) if r["event"] == "agent.prose_cut"]
    assert note["tokens"] == requests_of(work)[0]["max_tokens"]


def test_a_cut_echo_in_the_middle_of_its_block_is_not_applied(tmp_path: Path) -> None:
    """A reply cut inside its block (a model copying the file it was shown) is never
    written, whatever part of the file it holds."""
    from helpers import run_in_process

    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(big_program())
    (root / "expected.txt").write_text("10\n")
    echo = {
        "content": "main.py\n```python\n" + big_program()[:500],
        "finish_reason": "length",
    }
    fix = whole_file("main.py", TOTAL_FIXED)
    result, events, _ = run_in_process(
        root, [echo, fix], overrides=["llm.profiles.s.agent_tools=false"]
    )
    asked = [e.data["max_tokens"] for e in events if e.kind == "model.request"]
    assert asked == [reply_budget({"main.py": big_program()}, "functions")] * 2
    assert (root / "main.py").read_text() == big_program(fixed=True)
    assert result.status == "verified"


def test_a_reply_that_stopped_inside_its_block_copied_the_view() -> None:
    """The stop sequence ends a reply at a top-level left-out-lines line, inside its code
    block; a class shown as the methods that matter may be copied with its indented
    left-out-lines lines (a changed method goes inside its class line)."""
    from codur.agents.reply_shape import copied_view

    assert copied_view("Fix.\nparse.py\n```python\nimport re\n")  # stopped in the block
    assert copied_view("Fix.\nparse.py\n```python\nimport re\n# ... lines 3-9")  # kept
    shell = "Fix.\nparse.py\n```python\nclass P:\n    # ... lines 7-9 not shown ...\n"
    assert not copied_view(shell + "    def f(self):\n        return 1\n```\n")
    assert not copied_view("Fix.\nmain.py\n```python\nprint(1)\n```\n")


def test_a_reply_cut_in_a_later_function_keeps_the_one_it_completed(tmp_path: Path) -> None:
    """The model gives the fixed function, then goes on into another one until its budget
    runs out: the complete function before the cut is the edit (one call, verified), and
    the debug log says what was salvaged."""
    from helpers import run_in_process

    root = tmp_path / "work"
    root.mkdir()
    (root / "main.py").write_text(big_program())
    (root / "expected.txt").write_text("10\n")
    later = '\n\ndef helper_0(value):\n    """Return value'
    cut = {"content": "main.py\n```python\n" + TOTAL_FIXED + later, "finish_reason": "length"}
    result, events, _ = run_in_process(root, [cut], overrides=["llm.profiles.s.agent_tools=false"])
    assert result.status == "verified" and result.model_calls == 1, result.message
    assert (root / "main.py").read_text() == big_program(fixed=True)
    (note,) = [e.data for e in events if e.kind == "agent.cut_salvaged"]
    assert note["salvaged"] == ["main.py"]
