"""What every tool call gets: the workspace, the tools config, the event bus and the policy
for paths, secrets, changes and programs (the edit scope and the approval gate). No tool
reads globals.
"""

from __future__ import annotations

import dataclasses
import fnmatch
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
from codur.errors import CodurError
from codur.events import EventBus, Ticker
from codur.promptbook import PromptBook
from codur.sandbox import Sandbox
from codur.undo.diff import text_diff
from codur.workspace import Workspace, in_git_folder

if TYPE_CHECKING:
    from codur.process import ProcessResult
    from codur.project.interpreter import Interpreter
    from codur.search.index import CodeIndex
    from codur.session import Session
    from codur.tools.mcp import McpClients
    from codur.tools.todo import TodoItem
    from codur.undo.snapshot import RunSnapshot


class ToolError(CodurError):
    """A tool could not do what was asked; the message goes back to the model."""


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
    check_change: Callable[[str, str | None], None] | None = None
    """Called with a workspace-relative path (and the new text, when a tool writes text)
    before a tool changes or removes it: the run's edit scope may refuse it (ScopeError)."""
    before_change: Callable[[str], None] | None = None
    """Called with a workspace-relative path once a tool's change to it is approved, just
    before it happens: the run records what Codur changed."""
    after_change: Callable[[], None] | None = None
    """Called once the changes `before_change` heard of are made: the run records the
    files as Codur left them (someone else's later change is told apart)."""
    program_in: Callable[[Path], AbstractContextManager[None]] | None = None
    """Brackets a program running in a folder: in the run's workspace, what changes
    meanwhile is the run's (`Session.program`)."""
    made_in_run: Callable[[str, bool], str | None] | None = None
    """Whether a workspace-relative path was "created" or "changed" during this run
    (with True: only whether it was "created")."""
    written: Callable[[], list[str]] | None = None
    """The workspace-relative paths Codur changed in this run."""
    snapshot: Callable[[], RunSnapshot | None] | None = None
    """The run's snapshots (what the files were when it started), if it keeps any."""
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
    code_index: CodeIndex | None = field(default=None, init=False, repr=False)
    """The code search index, loaded and brought up to date on the first search of the
    run (`codur.tools.code`)."""
    _mcp: McpClients | None = field(default=None, init=False, repr=False)
    _mcp_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

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
            check_change=session.guard,
            before_change=session.note_change,
            after_change=session.changes_made,
            program_in=session.program,
            made_in_run=session.made_in_run,
            written=session.written,
            snapshot=lambda: session.snapshot,
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

    def is_secret(self, path: Path) -> bool:
        """Whether `path` matches one of `tools.secret_patterns`."""
        name = path.name.lower()
        rel = self.rel(path).lower() if path.is_absolute() else path.as_posix().lower()
        for pattern in self.config.secret_patterns:
            pat = pattern.lower()
            if fnmatch.fnmatchcase(rel if "/" in pat else name, pat):
                return True
        return False

    def changing(
        self,
        targets: Path | list[Path],
        new: str | None = None,
        *,
        action: str | None = None,
        destructive: bool = False,
    ) -> None:
        """Before a tool changes `targets` (to the text `new`) or removes them: the edit
        scope may refuse it, the approval mode may ask (a destructive `action` outside
        full-auto, any change in suggest mode, with the diff), and the run records it.
        A refusal becomes a ToolError for the model to read."""
        from codur.scope import ScopeError

        paths = [targets] if isinstance(targets, Path) else targets
        inside = [self.rel(p) for p in paths if self.ws.contains(p)]
        for rel in inside if self.check_change is not None else []:
            try:
                self.check_change(rel, new)  # type: ignore[misc]
            except ScopeError as exc:
                raise ToolError(f"refused to change {rel}: {exc}") from None
        what = action or f"write {self.rel(paths[0])}"
        kind = Action.DESTRUCTIVE if destructive else Action.EDIT
        detail = ""
        if new is not None:
            target = paths[0]
            detail = lambda: text_diff(self.rel(target), text_or_none(target), new)  # noqa: E731
        if not self.gate.approve(kind, what, detail):
            raise ToolError(f"the user declined this edit: {what}")
        for rel in inside if self.before_change is not None else []:
            self.before_change(rel)  # type: ignore[misc]

    def write(self, target: Path, text: str) -> None:
        """Write a tool's new text for `target` (scope, approval, recorded, atomic)."""
        self.changing(target, text)
        try:
            self.ws.write_text(target, text)
        finally:
            self.changed()

    def changed(self) -> None:
        """The changes `changing` announced are made (every writing tool ends with it)."""
        if self.after_change is not None:
            self.after_change()

    def running(self) -> AbstractContextManager[None]:
        """Around a program (or an MCP tool) acting in this context's folder."""
        if self.program_in is None:
            return nullcontext()
        return self.program_in(self.ws.root)

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
        tenths of a second while the program runs (the caller's own progress)."""
        from codur.process import run_process

        memory = self.config.memory_limit_mb
        box = dataclasses.replace(self.sandbox, read_only=()) if git_writable else self.sandbox
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
                env=env,
                sandbox=box,
                writable=writable or [],
                tick=tick,
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
        made = self.made_in_run(rel, self.checking) if rel and self.made_in_run else None
        if self.checking and not shell and made != "created":
            return
        code = [p for p in self.written() if p.endswith(".py")] if self.written else []
        if made:
            action += f" ({rel}: {'written' if made == 'created' else 'changed'} in this run)"
        elif code:
            action += f" (code changed in this run: {', '.join(code[:3])})"
        kind = Action.DESTRUCTIVE if made or code else Action.RUN
        if not self.gate.approve(kind, action):
            raise ToolError(f"the user declined: {action}")

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


def text_or_none(path: Path) -> str | None:
    """A file's text, to show what an edit changes (None: absent, or not UTF-8 text)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


Ctx = Annotated[ToolContext, InjectedToolArg]
"""The type of a tool's first parameter: injected by the registry, absent from schemas."""
