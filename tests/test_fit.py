"""Prompt fitting: evidence, earlier attempts and files are shortened, in that order,
until the prompt and the reply budget fit the context window (a word counter stands in
for the tokenizer)."""

from __future__ import annotations

from codur.agents.fit import MIN_REPLY, Prompt, clip_lines, fit


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
