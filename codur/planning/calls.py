"""A tool call decided by planning (not by an agent): registry name and arguments."""

from __future__ import annotations

from typing import TypedDict


class ToolCallSpec(TypedDict):
    """A tool call decided by planning (not by an agent): registry name and arguments."""

    tool: str
    args: dict
