"""The approval question and the diff shown with it come from files and commands the
model wrote: neither their terminal sequences nor rich markup reach the terminal."""

from __future__ import annotations

import builtins
import io

import pytest
from rich.console import Console

from codur.ui import IO


def test_a_question_and_its_diff_are_shown_as_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = io.StringIO()
    ui = IO()
    ui.err = Console(file=shown, force_terminal=True, color_system="standard", width=200)
    monkeypatch.setattr(builtins, "input", lambda *args: "n")
    question = "Allow the agent to run `echo hi [conceal]; touch /tmp/x[/conceal] [/]`?"
    detail = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+\x1b[8mhidden\x1b]0;title\x07 = 2\n"
    assert ui.confirm(question, detail) is False
    out = shown.getvalue()
    assert "[conceal]; touch /tmp/x[/conceal] [/]" in out
    assert "\x1b[8m" not in out and "\x1b]0;" not in out and "hidden" in out


def test_no_color_sends_no_style_at_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """NO_COLOR: the question's `[y/n]` is not bold either (rich keeps bold with its own
    NO_COLOR); without it, a terminal gets its styles."""
    for no_color, styled in (("1", False), (None, True)):
        if no_color:
            monkeypatch.setenv("NO_COLOR", no_color)
        else:
            monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("TERM", "xterm")
        monkeypatch.setenv("FORCE_COLOR", "1")  # a terminal, as rich sees it
        shown = io.StringIO()
        ui = IO()
        ui.err.file = shown
        monkeypatch.setattr(builtins, "input", lambda *args: "n")
        assert ui.confirm("Allow the agent to write main.py?", "") is False
        assert ("\x1b[" in shown.getvalue()) is styled, repr(shown.getvalue())
