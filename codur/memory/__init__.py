"""Codur's memory, in three tiers (docs/memory.md):

- working memory: the graph state of one task (`codur.graph.working` reads it);
- session memory: one `codur chat` session's files read and last exchanges (session.py);
- persistent memory: preferences, the `codur ask` answer cache and the node log, in
  `.codur/memory.json` and the user config folder (store.py, persistent.py).

Kept light (`codur --help` imports the package for `memory/cli.py`): import the parts
from their modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.promptbook import PromptBook

__all__ = ["preferences_section"]


def preferences_section(book: PromptBook, preferences: Sequence[str]) -> str:
    """The preferences as a prompt section (`book`'s preferences prompt) to append to a
    system message ("" if none)."""
    if not preferences:
        return ""
    listed = "\n".join(f"- {p}" for p in preferences)
    return "\n\n" + book.render("preferences", preferences=listed).rstrip()
