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
from codur.errors import WorkspaceError
from codur.events import EventBus
from codur.models.client import ModelClient, Usage
from codur.restore import RestorePoint
from codur.sandbox import Sandbox
from codur.scope import EditScope, ScopeError
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
    scope: EditScope | None = None
    """What the run may change (decided at its start; None: no limits, as in unit tests)."""
    _clients: dict[str, ModelClient] = field(default_factory=dict)
    _tools: ToolContext | None = None
    _sandbox: Sandbox | None = None

    def __post_init__(self) -> None:
        self.usage.max_calls = self.config.runtime.max_llm_calls
        if self.restore is None:
            self.restore = RestorePoint(self.ws, self.run_id)

    @property
    def model_allowed(self) -> bool:
        """False with `--no-model` / `--max-llm-calls 0`: the model is never loaded."""
        return self.config.runtime.max_llm_calls > 0

    @property
    def sandbox(self) -> Sandbox:
        """How the run's programs are contained (decided once, from the config; the
        `sandbox` event says how, or why they are not confined)."""
        if self._sandbox is None:
            self._sandbox = Sandbox.from_config(self.config)
            box = self._sandbox
            self.bus.emit("sandbox", confine=box.method, unconfined=box.unconfined)
        return self._sandbox

    def tool_context(self) -> ToolContext:
        """The run's tool context (one per run: it owns the MCP server connections)."""
        if self._tools is None:
            from codur.tools.context import ToolContext, refuse

            self._tools = ToolContext.from_session(self, self.confirm or refuse)
        return self._tools

    def guard(self, path: str, new: str | None = None) -> None:
        """Before `path` changes: refuse it (ScopeError) if it leaves the edit scope, else
        save its original in the restore point. `new` is the text about to be written
        (None: the file is removed, or replaced by a copy or a move)."""
        path = self._relative(path)
        if self.scope is not None:
            try:
                if new is None:
                    reason = self.scope.why_not(path)
                    if reason is not None:
                        raise ScopeError(reason)
                else:
                    self.scope.check_write(path, self._current(path), new)
            except ScopeError as exc:
                self.bus.emit("scope.refused", path=path, reason=str(exc))
                raise
        if self.restore is not None:
            self.restore.save(path)

    def _relative(self, path: str) -> str:
        """`path` as the workspace-relative path the scope and the restore point know
        (an absolute path inside the workspace is fine; outside: WorkspaceError), so a
        restore backup always lands inside the restore folder."""
        return self.ws.relative(self.ws.resolve(path))

    def _current(self, path: str) -> str | None:
        try:
            return self.ws.read_text(path) if self.ws.resolve(path).is_file() else None
        except WorkspaceError:
            return None  # not text: no harness to compare

    def write_file(self, path: str, text: str, by: str) -> str:
        """Change a user's file: admitted by the edit scope (a change to a program's
        harness is left out, the rest kept: see EditScope.admit), the original goes to
        the restore point first; the write is atomic and announced as a `file.write`
        event (`by`: the agent or the repair). Returns the text written."""
        path = self._relative(path)
        if self.scope is not None:
            try:
                admitted = self.scope.admit(path, self._current(path), text)
            except ScopeError as exc:
                self.bus.emit("scope.refused", path=path, reason=str(exc))
                raise
            if admitted != text:
                harness = self.scope.harness(path)
                kept = harness.describe() if harness else "the harness"
                self.bus.emit("scope.kept_harness", path=path, kept=kept, by=by)
            text = admitted
        if self.restore is not None:
            self.restore.save(path)
        self.ws.write_text(path, text)
        self.bus.emit("file.write", path=path, lines=text.count("\n") + 1, by=by)
        return text

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
