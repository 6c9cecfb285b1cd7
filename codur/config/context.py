"""The `context` config section: how much of the code the coder's prompt shows. Same
rules as the rest of the schema: every field documented, unknown keys are errors."""

from __future__ import annotations

from pydantic import Field

from codur.config.sections import _Section


class ContextConfig(_Section):
    whole_file_lines: int = Field(400, gt=0)
    """A file of at most this many lines goes into the coder's prompt whole. A longer one
    is shown in part when the code that matters in it is found (the failing traceback,
    the failing tests' calls, the task's words): those functions, the module's imports
    and the names they use; a reply's functions are merged into it by name."""
    max_functions: int = Field(6, gt=0)
    """Functions and methods located for a task that go into the prompt in full, the ones
    that matter most first (the traceback's, then those the task names, then the failing
    tests' calls and the search's ranking, fused)."""
    max_files: int = Field(4, gt=0)
    """Files located for a task that names none (`codur "test_x fails: fix it"`) shown
    to the coder; files the task names are always shown."""
    map_entries: int = Field(12, ge=0)
    """Signatures (`path:line def name(args)`) of the next-ranked definitions listed
    after the files as a map of the related code not shown (0: no map)."""
