"""Approval: which of Codur's actions need the user's yes, and asking for it.

Three modes, as in Codex CLI (`approval.mode`, `--approval`; `--yes` is full-auto):

| action                                             | suggest | auto-edit | full-auto |
|----------------------------------------------------|---------|-----------|-----------|
| edit a file (model edits, repairs, writing tools)  | ask     | -         | -         |
| run a program or tests from a tool, call MCP tools | ask     | ask       | -         |
| destructive: delete, overwrite by copy/move, git   | ask     | ask       | -         |
| commit, run code written or changed in this run    |         |           |           |
| the check itself (see ToolContext.approve_run)     | -       | -         | -         |

One `Gate` per run, shared by the Session (edits of agents and repairs) and the
ToolContext (tools); nothing else asks. With nobody to ask (no terminal, --json) an action
that needs a yes stops the run with ApprovalRequired: it never blocks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from codur.config.sections import ApprovalMode
from codur.errors import ApprovalRequired
from codur.events import EventBus


class Action(str, Enum):
    EDIT = "edit"
    RUN = "run"
    DESTRUCTIVE = "destructive"


ASKS: dict[str, frozenset[Action]] = {
    "suggest": frozenset(Action),
    "auto-edit": frozenset({Action.RUN, Action.DESTRUCTIVE}),
    "full-auto": frozenset(),
}
"""The actions each mode asks about."""

Ask = Callable[[str, str], bool]
"""Asks the user a yes/no question, showing `detail` (a diff) first; the UI decides how."""


@dataclass
class Gate:
    mode: ApprovalMode = "auto-edit"
    ask: Ask | None = None
    """None: nobody to ask (no terminal, --json): an action that needs a yes stops the run."""
    bus: EventBus = field(default_factory=EventBus)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """One question at a time (parallel tool calls share the gate)."""

    def asks(self, action: Action) -> bool:
        """Whether `action` needs a yes in this mode."""
        return action in ASKS[self.mode]

    def approve(self, action: Action, what: str, detail: str | Callable[[], str] = "") -> bool:
        """True: go ahead (the mode allows `what`, or the user said yes); False: the user
        said no. ApprovalRequired when a yes is needed and nobody can give it. `detail`
        (or a function making it, called only when asking) is shown before the question."""
        if not self.asks(action):
            return True
        if self.ask is None:
            self.bus.emit("approval.needed", action=action.value, what=what, mode=self.mode)
            raise ApprovalRequired(what, self.mode, _allowed_by(action))
        shown = detail() if callable(detail) else detail
        with self._lock:
            answer = bool(self.ask(f"Allow the agent to {what}?", shown))
        self.bus.emit("approval", action=action.value, what=what, approved=answer, mode=self.mode)
        return answer


def _allowed_by(action: Action) -> str:
    """The least permissive mode that does not ask about `action`."""
    return next(m for m in ("auto-edit", "full-auto") if action not in ASKS[m])
