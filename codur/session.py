"""The run context handed to everything a run does: config, workspace, events, models.

(This is what the LangGraph runtime context will carry; nothing reads globals.)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from codur.config import CodurConfig
from codur.events import EventBus
from codur.models.client import ModelClient, Usage
from codur.restore import RestorePoint
from codur.workspace import Workspace

if TYPE_CHECKING:
    from codur.tools.context import ToolContext


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


@dataclass
class Session:
    config: CodurConfig
    ws: Workspace
    bus: EventBus
    run_id: str = field(default_factory=new_run_id)
    profile: str | None = None
    """Profile chosen on the command line (--profile); else llm.default_profile."""
    assume_yes: bool = False
    """--yes: destructive actions need no confirmation."""
    confirm: Callable[[str], bool] | None = None
    """Asks the user a yes/no question (None: nobody to ask, so the answer is no)."""
    usage: Usage = field(default_factory=Usage)
    restore: RestorePoint | None = None
    _clients: dict[str, ModelClient] = field(default_factory=dict)
    _tools: ToolContext | None = None

    def __post_init__(self) -> None:
        self.usage.max_calls = self.config.runtime.max_llm_calls
        if self.restore is None:
            self.restore = RestorePoint(self.ws, self.run_id)

    def tool_context(self) -> ToolContext:
        """The run's tool context (one per run: it owns the MCP server connections)."""
        if self._tools is None:
            from codur.tools.context import ToolContext, refuse

            self._tools = ToolContext.from_session(self, self.confirm or refuse)
        return self._tools

    def write_file(self, path: str, text: str, by: str) -> None:
        """Change a user's file: the original goes to the restore point first; the write is
        atomic and announced as a `file.write` event (`by`: the agent or the repair)."""
        if self.restore is not None:
            self.restore.save(path)
        self.ws.write_text(path, text)
        self.bus.emit("file.write", path=path, lines=text.count("\n") + 1, by=by)

    def close(self) -> None:
        """Release what the run opened (MCP servers)."""
        if self._tools is not None:
            self._tools.close()

    def client(self, profile: str | None = None) -> ModelClient:
        """The model client for `profile` (default: --profile, else llm.default_profile)."""
        name, prof = self.config.profile(profile or self.profile)
        if name not in self._clients:
            self._clients[name] = ModelClient(name, prof, self.bus, self.usage)
        return self._clients[name]
