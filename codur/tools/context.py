"""What every tool call gets: the workspace, the tools config, the event bus and the policy
for paths, secrets and destructive actions. No tool reads globals.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from langchain_core.tools import InjectedToolArg

from codur.config.schema import McpServerConfig, ToolsConfig
from codur.errors import CodurError
from codur.events import EventBus
from codur.sandbox import Sandbox
from codur.workspace import Workspace

if TYPE_CHECKING:
    from codur.session import Session
    from codur.tools.mcp import McpClients
    from codur.verify.process import ProcessResult


class ToolError(CodurError):
    """A tool could not do what was asked; the message goes back to the model."""


def refuse(question: str) -> bool:
    """The default confirmation: nobody is there to say yes."""
    return False


@dataclass
class ToolContext:
    """The run's view of the world for tools; one per run, shared by parallel calls."""

    ws: Workspace
    config: ToolsConfig = field(default_factory=ToolsConfig)
    bus: EventBus = field(default_factory=EventBus)
    confirm: Callable[[str], bool] = refuse
    """Asks the user a yes/no question (the UI decides how); used for destructive tools."""
    assume_yes: bool = False
    """--yes: destructive tools need no confirmation."""
    mcp_servers: Mapping[str, McpServerConfig] = field(default_factory=dict)
    before_change: Callable[[str, str | None], None] | None = None
    """Called with a workspace-relative path (and the new text, when a tool writes text)
    before a tool changes or removes it: the run's edit scope may refuse it (ScopeError),
    and its restore point saves the original."""
    sandbox: Sandbox = field(default_factory=Sandbox)
    """How programs run (environment, confinement); the run's, from its config."""
    write_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    """Held while a tool that writes runs, so parallel calls never race on one file."""
    _mcp: McpClients | None = field(default=None, init=False, repr=False)
    _mcp_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: object, handler: object) -> object:
        """Schemas (langchain's, for the injected `ctx`) see an opaque object."""
        from pydantic_core import core_schema

        return core_schema.is_instance_schema(cls)

    def __post_init__(self) -> None:
        if self.config.allow_outside_workspace and not self.ws.allow_outside:
            self.ws = dataclasses.replace(self.ws, allow_outside=True)

    @classmethod
    def from_session(cls, session: Session, confirm: Callable[[str], bool] = refuse) -> ToolContext:
        """The context for a run: its config, workspace, events, --yes and restore point."""
        return cls(
            ws=session.ws,
            config=session.config.tools,
            bus=session.bus,
            confirm=confirm,
            assume_yes=session.assume_yes,
            mcp_servers=session.config.mcp_servers,
            before_change=session.guard,
            sandbox=session.sandbox,
        )

    # --- paths -----------------------------------------------------------------------

    def path(self, path: str) -> Path:
        """Resolve `path` in the workspace; refuse secrets files unless config allows."""
        target = self.ws.resolve(path)
        if not self.config.allow_secrets and (self.is_secret(Path(path)) or self.is_secret(target)):
            raise ToolError(
                f"{path} looks like a secrets file; tools leave it alone "
                "(set tools.allow_secrets: true to allow)"
            )
        return target

    def rel(self, path: Path) -> str:
        """How a path is shown to the model: relative to the workspace root."""
        return self.ws.relative(path)

    def is_secret(self, path: Path) -> bool:
        """Whether `path` matches one of `tools.secret_patterns`."""
        name = path.name.lower()
        rel = self.rel(path).lower() if path.is_absolute() else path.as_posix().lower()
        for pattern in self.config.secret_patterns:
            pat = pattern.lower()
            if fnmatch.fnmatchcase(rel if "/" in pat else name, pat):
                return True
        return False

    def changing(self, target: Path, new: str | None = None) -> None:
        """Announce that `target` is about to be changed (to `new`) or removed; a change
        outside the run's edit scope becomes a ToolError for the model to read."""
        from codur.scope import ScopeError

        if self.before_change is not None and self.ws.contains(target):
            try:
                self.before_change(self.rel(target), new)
            except ScopeError as exc:
                raise ToolError(f"refused to change {self.rel(target)}: {exc}") from None

    def write(self, target: Path, text: str) -> None:
        """Write a tool's new text for `target` (scope check, restore point, atomic)."""
        self.changing(target, text)
        self.ws.write_text(target, text)

    def run(
        self,
        command: list[str],
        timeout_s: float,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        writable: list[Path] | None = None,
        output_limit: int | None = None,
    ) -> ProcessResult:
        """Run a program from the workspace root in the run's sandbox, with the tools'
        output and memory caps."""
        from codur.verify.process import run_process

        memory = self.config.memory_limit_mb
        return run_process(
            command,
            self.ws.root,
            timeout_s,
            output_limit or self.config.output_limit_bytes,
            memory_limit=memory * 1024 * 1024 if memory else None,
            stdin=stdin,
            env=env,
            sandbox=self.sandbox,
            writable=writable or [],
        )

    # --- destructive actions ---------------------------------------------------------

    def approve(self, action: str) -> None:
        """Go ahead with a destructive `action`, or raise ToolError if nobody agreed."""
        if self.assume_yes or self.config.allow_destructive:
            return
        answer = self.confirm(f"Allow the agent to {action}?")
        self.bus.emit("tool.confirm", action=action, approved=answer)
        if not answer:
            raise ToolError(
                f"refused to {action}: not confirmed "
                "(run with --yes or set tools.allow_destructive: true to allow)"
            )

    # --- MCP clients, started on first use --------------------------------------------

    @property
    def mcp(self) -> McpClients:
        with self._mcp_lock:
            wanted = (dict(self.mcp_servers), self.config.mcp_timeout_s)
            if self._mcp is not None and (self._mcp.servers, self._mcp.timeout_s) != wanted:
                self._mcp.close()  # the configuration changed under us
                self._mcp = None
            if self._mcp is None:
                from codur.tools.mcp import McpClients

                self._mcp = McpClients(self.mcp_servers, self.config.mcp_timeout_s, self.ws.root)
            return self._mcp

    def close(self) -> None:
        """Stop the MCP servers this context started."""
        with self._mcp_lock:
            if self._mcp is not None:
                self._mcp.close()
                self._mcp = None

    def __enter__(self) -> ToolContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Ctx = Annotated[ToolContext, InjectedToolArg]
"""The type of a tool's first parameter: injected by the registry, absent from schemas."""
