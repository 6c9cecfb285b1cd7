"""What every tool call gets: the workspace, the tools config, the event bus and the policy
for paths, secrets, changes and programs (the edit scope and the approval gate). No tool
reads globals.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import sys
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from langchain_core.tools import InjectedToolArg

from codur.approval import Action, Gate
from codur.config.schema import McpServerConfig, ToolsConfig
from codur.errors import ConfigError, EditDeclined
from codur.events import EventBus, Ticker
from codur.promptbook import PromptBook
from codur.sandbox import Sandbox
from codur.sandbox.repository import GIT
from codur.scope import ScopeError
from codur.tools.mcp_slot import McpSlot
from codur.tools.tool_error import ToolError
from codur.workspace import Workspace, in_git_folder
from codur.writes import Changes

if TYPE_CHECKING:
    from codur.process import ProcessResult
    from codur.project.interpreter import Interpreter
    from codur.search.index import CodeIndex
    from codur.session import Session
    from codur.tools.mcp_clients import McpClients
    from codur.tools.todo import TodoItem


@dataclass
class ToolContext:
    """The run's view of the world for tools; one per run, shared by parallel calls."""

    ws: Workspace
    config: ToolsConfig = field(default_factory=ToolsConfig)
    bus: EventBus = field(default_factory=EventBus)
    gate: Gate = None  # type: ignore[assignment]  # set in __post_init__ when not given
    """Decides which changes and runs need the user's yes, and asks (one per run, shared
    with the Session). Unset: full-auto, nothing asked (a context made by hand, as in
    tests; a run's context always gets the run's gate from its Session)."""
    checking: bool = False
    """This context runs the check itself (the verifier's): its programs run without
    asking, unless the program was created in this run."""
    mcp_servers: Mapping[str, McpServerConfig] = field(default_factory=dict)
    changes: Changes = None  # type: ignore[assignment]  # set in __post_init__ when not given
    """The run's write path (edit scope, approval, snapshot: `codur.writes`), the one
    agent edits take too. Unset: one with no scope and no snapshot (a context made by
    hand); a copy of the context for another folder gets the scope alone."""
    on_read: Callable[[str], None] | None = None
    """Called with the workspace-relative path of a file a tool read into the
    conversation (read_file, read_json, ...): the run counts it among the files it read
    (`Session.note_read`)."""
    prompts: PromptBook = field(default_factory=PromptBook)
    """The run's prompts (the Session's), for what a check tells the model: the report of
    a failed check. A context made by hand: the shipped ones."""
    sandbox: Sandbox = field(default_factory=Sandbox)
    """How programs run (environment, confinement); the run's, from its config."""
    interpreter: Callable[[], Interpreter] | None = None
    """The project's Python (found and probed on first use, once per run: the Session's);
    None: `tools.python`, else the one running Codur (a context made by hand)."""
    write_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    """Held while a tool that writes runs, so parallel calls never race on one file."""
    todos: list[TodoItem] = field(default_factory=list, repr=False)
    """The task's todo list (plan_verify mode). The graph state holds it: the agent loop
    puts the state's list here before a round of tools and takes it back after, so
    todo_write / todo_read (codur.tools.todo) work on the run's list."""
    program_env: Mapping[str, str] = field(default_factory=dict)
    """Environment the folder's programs get besides Codur's own (a scratch copy's
    `PYTHONPATH`: `codur.repair.scratch.in_copy`)."""
    stop_output: Callable[[int, str], bool] | None = None
    """Set on an output check's copy of the context: its program is stopped at the first
    stdout line this returns True for (a line that cannot match the expected output;
    `codur.sandbox.pipes.StopOn`)."""
    code_index: CodeIndex | None = field(default=None, init=False, repr=False)
    """The code search index, loaded and brought up to date on the first search of the
    run (`codur.tools.code`)."""
    _mcp: McpSlot = field(default_factory=McpSlot, init=False, repr=False)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: object, handler: object) -> object:
        """Schemas (langchain's, for the injected `ctx`) see an opaque object."""
        from pydantic_core import core_schema

        return core_schema.is_instance_schema(cls)

    def __post_init__(self) -> None:
        if self.gate is None:
            self.gate = Gate("full-auto", bus=self.bus)
        if self.config.allow_outside_workspace and not self.ws.allow_outside:
            self.ws = dataclasses.replace(self.ws, allow_outside=True)
        if self.changes is None:
            self.changes = Changes(self.ws, self.bus, self.gate)
        elif self.changes.ws.root != self.ws.root:  # a scratch copy: nothing of it is the run's
            run = self.changes.run or self.changes
            self.changes = Changes(self.ws, self.bus, self.gate, scope=run.scope, run=run)

    @classmethod
    def from_session(cls, session: Session) -> ToolContext:
        """The context for a run: its config, workspace, events, approval gate, edit scope,
        snapshots and prompts."""
        return cls(
            ws=session.ws,
            config=session.config.tools,
            bus=session.bus,
            gate=session.gate,
            mcp_servers=session.config.mcp_servers,
            changes=session.changes,
            on_read=session.note_read,
            prompts=session.prompts,
            sandbox=session.sandbox,
            interpreter=lambda: session.interpreter,
        )

    @property
    def python(self) -> str:
        """The interpreter the project's programs, tests and checks run with."""
        if self.interpreter is not None:
            return self.interpreter().path
        return self.config.python or sys.executable

    def activation(self) -> dict[str, str]:
        """The project's virtualenv as if activated, for every program of the run
        (`Interpreter.activation`)."""
        if self.interpreter is None:
            return {}
        try:
            return self.interpreter().activation(os.environ)
        except ConfigError:  # tools.python names none: said where the interpreter is needed
            return {}

    # --- paths -----------------------------------------------------------------------

    def path(self, path: str) -> Path:
        """Resolve `path` in the workspace; refuse git's own folder, and secrets files
        unless config allows."""
        target = self.ws.resolve(path)
        if in_git_folder(Path(path).as_posix()) or in_git_folder(self.rel(target)):
            raise ToolError(
                f"{path} is in .git, git's own folder; tools leave it alone "
                "(the git tools show the repository)"
            )
        if not self.config.allow_secrets and (self.is_secret(Path(path)) or self.is_secret(target)):
            raise ToolError(
                f"{path} looks like a secrets file; tools leave it alone "
                "(set tools.allow_secrets: true to allow)"
            )
        return target

    def rel(self, path: Path) -> str:
        """How a path is shown to the model: relative to the workspace root."""
        return self.ws.relative(path)

    def read_into_context(self, target: Path) -> None:
        """A tool read `target` into the conversation: tell the run (`on_read`)."""
        if self.on_read is not None and self.ws.contains(target):
            self.on_read(self.rel(target))

    def is_secret(self, path: Path) -> bool:
        """Whether `path` matches one of `tools.secret_patterns`."""
        name = path.name.lower()
        rel = self.rel(path).lower() if path.is_absolute() else path.as_posix().lower()
        patterns = (p.lower() for p in self.config.secret_patterns)
        return any(fnmatch.fnmatchcase(rel if "/" in pat else name, pat) for pat in patterns)

    def changing(
        self,
        targets: Path | list[Path],
        new: str | None = None,
        *,
        action: str | None = None,
        destructive: bool = False,
    ) -> str | None:
        """Before a tool changes `targets` (to the text `new`) or removes them: the run's
        write path guards, approves and records it (`Changes.prepare`). Returns `new`
        (a change to a program's harness is refused whole here: only `write` can keep the
        harness out); a refusal becomes a ToolError for the model to read."""
        paths = [targets] if isinstance(targets, Path) else targets
        what = action or f"write {self.rel(paths[0])}"
        try:
            return self.changes.prepare(
                paths,
                new,
                what=what,
                destructive=destructive,
                by="tool",
                gate=self.gate,
                ws=self.ws,
            )
        except ScopeError as exc:
            raise ToolError(f"refused to change {exc.path}: {exc}") from None
        except EditDeclined:
            raise ToolError(f"the user declined this edit: {what}") from None

    def write(self, target: Path, text: str) -> str:
        """Write a tool's new text for `target` through the run's write path (scope,
        approval, recorded, atomic, `file.write`); returns the text written."""
        try:
            return self.changes.write(target, text, by="tool", gate=self.gate, ws=self.ws)
        except ScopeError as exc:
            raise ToolError(f"refused to change {exc.path}: {exc}") from None
        except EditDeclined:
            raise ToolError(f"the user declined this edit: write {self.rel(target)}") from None

    def changed(self) -> None:
        """The changes `changing` announced are made (every writing tool ends with it)."""
        self.changes.made()

    def running(self) -> AbstractContextManager[None]:
        """Around a program (or an MCP tool) acting in this context's folder."""
        return self.changes.program(self.ws.root)

    def run(
        self,
        command: list[str],
        timeout_s: float,
        stdin: str | None = None,
        env: dict[str, str] | None = None,
        writable: list[Path] | None = None,
        output_limit: int | None = None,
        git_writable: bool = False,
        tick: Callable[[], None] | None = None,
    ) -> ProcessResult:
        """Run a program from the workspace root in the run's sandbox, with the tools'
        output and memory caps; `git_writable`: without the sandbox's read-only paths
        (the workspace's `.git`: for git itself recording history). A check's program
        (`checking`) is announced by program.start and program.end events, and by a
        program.progress event a second while it runs; `tick`: called instead every few
        tenths of a second while the program runs (the caller's own progress);
        `stop_output`, when set, stops it at a stdout line."""
        from codur.process import run_process

        memory = self.config.memory_limit_mb
        box = self.sandbox
        if git_writable:  # git's own folders only: the project's virtualenv stays read-only
            kept = tuple(p for p in box.read_only if Path(p).name != GIT)
            box = dataclasses.replace(box, read_only=kept)
        # git itself runs without the project's virtualenv first on PATH: git finds filter
        # drivers, hooks and helpers there, and runs them with its folder writable
        git = git_writable or Path(command[0]).name == GIT.lstrip(".")
        activated = {} if git else self.activation()
        # a check's program: program.start, .progress and .end (with duration_s) tell the UI
        shown = self.bus.span("program", command=command) if self.checking else nullcontext()
        if tick is None and self.checking:
            tick = partial(Ticker(self.bus, "program.progress"), command=command)
        with self.running(), shown:
            return run_process(
                command,
                self.ws.root,
                timeout_s,
                output_limit or self.config.output_limit_bytes,
                memory_limit=memory * 1024 * 1024 if memory else None,
                stdin=stdin,
                env={**activated, **self.program_env, **(env or {})} or env,
                sandbox=box,
                writable=writable or [],
                tick=tick,
                stop_on=self.stop_output,
            )

    # --- actions that need approval -----------------------------------------------------

    def approve(self, action: str) -> None:
        """Go ahead with a destructive `action` (not a file change: a git commit), or
        raise ToolError if the user said no."""
        if not self.gate.approve(Action.DESTRUCTIVE, action):
            raise ToolError(f"the user declined: {action}")

    def approve_run(self, action: str, program: Path | None = None, *, shell: bool = False) -> None:
        """Before a tool runs a program, tests, a shell command or an MCP tool (`action`,
        e.g. "run python x.py"; `program`: the file it runs). Outside full-auto it needs a
        yes; running code written or changed in this run is a destructive action. The
        check itself runs freely, unless its program was created in this run; a `shell`
        command is never the check."""
        rel = self.rel(program) if program is not None and self.ws.contains(program) else None
        made = self.changes.made_in_run(rel, self.checking) if rel else None
        if self.checking and not shell and made != "created":
            return
        code = [p for p in self.changes.written() if p.endswith(".py")]
        if made:
            action += f" ({rel}: {'written' if made == 'created' else 'changed'} in this run)"
        elif code:
            action += f" (code changed in this run: {', '.join(code[:3])})"
        kind = Action.DESTRUCTIVE if made or code else Action.RUN
        if not self.gate.approve(kind, action):
            raise ToolError(f"the user declined: {action}")

    @property
    def mcp(self) -> McpClients:
        """The MCP servers' clients, started on first use."""
        return self._mcp.get(self.mcp_servers, self.config.mcp_timeout_s, self.ws.root)

    def close(self) -> None:
        """Stop the MCP servers this context started."""
        self._mcp.close()

    def __enter__(self) -> ToolContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Ctx = Annotated[ToolContext, InjectedToolArg]
"""The type of a tool's first parameter: injected by the registry, absent from schemas."""
