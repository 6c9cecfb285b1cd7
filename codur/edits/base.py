"""What an edit is: a file's new text and how it was read from the reply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

How = Literal["whole_file", "merged", "search_replace"]


class EditError(ValueError):
    """An edit that cannot be applied; its message goes back to the model."""


@dataclass(frozen=True)
class Edit:
    """The new text of one file, and how the reply produced it (for the caller's log).

    how: "whole_file" (a block that is the complete new file), "merged" (a block holding
    only some functions/classes, merged by name into the file) or "search_replace".
    For a merge: `replaced` names the definitions taken from the block (`f`, `C`,
    `C.method`), `added` the new ones, `imports` the new import statements and `kept`
    the block's other statements, which were not merged (the file's own stay).
    """

    path: str
    content: str
    how: How = "whole_file"
    replaced: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for a log: `main.py: merged digit_sum; kept the file's own print(...)`."""
        parts = [f"{self.path}: {self.how.replace('_', ' ')}"]
        for label, names in (
            ("replaced", self.replaced),
            ("added", self.added),
            ("imports", self.imports),
            ("not merged", self.kept),
        ):
            if names:
                parts.append(f"{label} {', '.join(names)}")
        return "; ".join(parts)
