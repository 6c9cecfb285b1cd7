"""Prompt fitting: evidence, earlier attempts and files are shortened, in that order,
until the prompt and the reply budget fit the context window (a word counter stands in
for the tokenizer)."""

from __future__ import annotations

from pathlib import Path

from codur.agents.fit import MIN_REPLY, Prompt, clip_lines, fit
from codur.agents.prompting import build_messages
from codur.agents.registry import AgentRequest
from codur.config.schema import LLMProfile
from codur.events import EventBus
from codur.models.client import ModelClient
from codur.promptbook import PromptBook


def render(prompt: Prompt) -> list[str]:
    files = "\n".join(prompt.files.values())
    return [files, prompt.evidence, *prompt.attempts, *prompt.notes]


def count(messages: list[str]) -> int:
    return sum(len(m.split()) for m in messages)


LONG_OUTPUT = "\n".join(f"line {n} of output" for n in range(1, 2001))
FILE = "\n".join(f"x{n} = {n}" for n in range(1, 301))


def test_a_prompt_that_fits_is_left_alone() -> None:
    prompt = Prompt(files={"a.py": "x = 1"}, evidence="Expected 1, got 2")
    assert fit(prompt, render, count, 1000, 200) == (prompt, 200)


def test_long_evidence_is_cut_to_head_and_tail_and_the_prompt_says_so() -> None:
    prompt = Prompt(files={"a.py": FILE}, evidence="Running failed.\n" + LONG_OUTPUT)
    fitted, budget = fit(prompt, render, count, 2000, 500)
    assert count(render(fitted)) + budget <= 2000
    assert fitted.evidence.startswith("Running failed.")
    assert fitted.evidence.endswith("line 2000 of output")
    assert "lines not shown" in fitted.evidence
    assert any("shortened" in note for note in fitted.notes)
    assert not fitted.partial_files and fitted.files == prompt.files


def test_files_are_shown_around_the_failure_when_nothing_else_helps() -> None:
    prompt = Prompt(files={"a.py": FILE}, evidence="boom", attempts=("one", "two", "three"))
    fitted, budget = fit(prompt, render, count, 600, 300, hot_lines={"a.py": {150}})
    assert fitted.partial_files and fitted.attempts == ()
    assert "x150 = 150" in fitted.files["a.py"] and "x100 = 100" not in fitted.files["a.py"]
    assert count(render(fitted)) + budget <= 600


def test_the_reply_budget_shrinks_last_and_never_below_the_minimum() -> None:
    prompt = Prompt(files={"a.py": "word " * 900})
    _, budget = fit(prompt, render, count, 1000, 800)
    assert budget == MIN_REPLY


def test_clip_lines_keeps_short_text() -> None:
    assert clip_lines("a\nb", 5) == "a\nb"
    assert clip_lines("\n".join("abcdefgh"), 4) == "a\nb\n... (4 lines not shown) ...\ng\nh"


def test_a_file_shown_in_part_loses_its_last_ranked_functions_until_it_fits(
    tmp_path: Path,
) -> None:
    """tabulate's excerpt of six located functions (its 600-line `tabulate` among them)
    was 14,188 tokens for an 8,192 window, and the call failed. The excerpt keeps the
    best-ranked functions that fit, dropping the last-ranked first."""
    big = "\n".join(f"    total += {n}" for n in range(400))
    small = "def first(x):\n    return x + 1\n"
    helpers = [f"\n\ndef helper_{k}(total):\n{big}\n    return total\n" for k in range(4)]
    unrelated = "\n\ndef unrelated():\n    return 0\n"  # not shown: the file is in part
    text = small + "".join(helpers) + unrelated
    request = AgentRequest(
        task="fix first",
        files={"pkg/mod.py": text},
        parts={"pkg/mod.py": ("first", "helper_0", "helper_1", "helper_2", "helper_3")},
    )
    prompt = _fitted(tmp_path, request, window=6000)
    assert "def first(x)" in prompt and "def helper_0" in prompt
    assert "def helper_3" not in prompt


def test_a_file_whose_one_function_does_not_fit_is_left_out(tmp_path: Path) -> None:
    """tabulate-01 (86315fb): the first-ranked function of `tabulate/__init__.py`, the
    600-line `tabulate()`, made an 11,752-token prompt for the 8,192 window even alone,
    and the run ended in a model error. A file whose one function still does not fit
    leaves the prompt; the other files stay."""
    huge = "def huge(total):\n" + "\n".join(f"    total += {n}" for n in range(900)) + "\n"
    request = AgentRequest(
        task="fix first",
        files={
            "pkg/big.py": huge + "\n\ndef other():\n    return 0\n",
            "pkg/small.py": "def first(x):\n    return x + 1\n",
        },
        parts={"pkg/big.py": ("huge",)},
    )
    prompt = _fitted(tmp_path, request, window=3000)
    assert "def first(x)" in prompt and "def huge" not in prompt


def _fitted(tmp_path: Path, request: AgentRequest, window: int) -> str:
    """The user turn build_messages makes for `request` with a `window`-token model (the
    prompt and the reply's budget within it)."""
    script = tmp_path / "script.yaml"
    script.write_text("- unused\n")
    profile = LLMProfile(provider="scripted", script=str(script), max_tokens=256)
    client = ModelClient("s", profile, EventBus(), max_context_tokens=window)
    messages, shape = build_messages(request, client, "system", PromptBook())
    assert client.count_tokens(messages) + shape.budget <= window
    return str(messages[-1].content)
