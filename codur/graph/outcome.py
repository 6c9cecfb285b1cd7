"""Outcome: what the last attempt did, as one typed fact (written by execute, repair and
sample; read by verify and review). Nodes record it; review decides from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

OutcomeKind = Literal[
    "edited",
    "no_edit",
    "rejected",
    "cut",
    "duplicate",
    "repaired",
    "no_repair",
    "sampled",
    "no_sample",
    "crosschecked",
    "put_back",
    "agent_failed",
    "completed",
    "no_completion",
]
"""edited: the agent's edits were applied (checked next); no_edit: its reply changed no
file; rejected: its edits could not be applied (`error` says why); cut: the reply hit the
token limit (nothing applied); duplicate: it repeated an earlier reply (nothing applied);
repaired / no_repair: the repair search applied a fix / found none; sampled / no_sample:
a sampled candidate that passed in a scratch copy was written / none passed;
crosschecked: the cross-check wrote a reply that behaves more like the other replies than
the change that had passed (codur/agents/crosscheck.py); put_back: that reply failed on
the real files, so the change it replaced was written again; completed /
no_completion (plan_verify mode): the agent called attempt_completion (`reply` holds its
result; an agent without tools completes with its applied reply) / its loop ended
without it; agent_failed: the agent itself failed or could not run (not installed,
unreachable, its CLI exited with an error or timed out; `error` says how), whatever it
changed before is checked."""

APPLIED: frozenset[OutcomeKind] = frozenset(
    {"edited", "no_edit", "repaired", "sampled", "crosschecked", "put_back", "completed"}
)
"""Kinds after which the files may differ, so they are checked again."""


@dataclass(frozen=True)
class Outcome:
    kind: OutcomeKind
    agent: str = ""
    """The agent reference that made the attempt; empty for the repair search (no model)."""
    reply: str = ""
    files_changed: tuple[str, ...] = ()
    error: str = ""
    """Why a rejected reply could not be applied (goes back to the model), or how the
    agent failed."""
    notes: tuple[str, ...] = ()
    """Parts of the reply left out (outside the edit scope), for the next prompt."""
    digest: str = ""
    """Identifies the reply's content (a repeated reply is recognised by it)."""
    candidates: tuple[str, ...] = ()
    """Sampling: one line per candidate tried (how it failed)."""
    fingerprints: tuple[str, ...] = ()
    """Sampling: the failures of the candidates that ran."""

    def __post_init__(self) -> None:
        for name in ("files_changed", "notes", "candidates", "fingerprints"):
            if not isinstance(getattr(self, name), tuple):  # revived from a checkpoint
                object.__setattr__(self, name, tuple(getattr(self, name)))

    @property
    def applied(self) -> bool:
        """The files may differ since the last check."""
        return self.kind in APPLIED or (self.kind == "agent_failed" and bool(self.files_changed))
