"""The run context handed to everything a run does: config, workspace, events, models,
the sandbox, the approval gate and the run's write path (`codur.writes.Changes`).

A frozen bundle of services (the LangGraph runtime context; nothing reads globals):
what a run learns lives in the graph's state, returned by the nodes that learn it. Some
services are built on first use (the sandbox, the project's Python, the tool context,
each profile's model client) and kept for the run.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codur.approval import Ask, Gate
from codur.config import CodurConfig
from codur.errors import Cancelled
from codur.events import EventBus
from codur.models.client import ModelClient
from codur.models.usage import Usage
from codur.promptbook import PromptBook
from codur.redaction import Redactor, dotenv_secrets, remember, secret_values
from codur.sandbox import Sandbox
from codur.scope import EditScope
from codur.undo.records import new_run_id
from codur.workspace import Workspace
from codur.writes import Changes

if TYPE_CHECKING:
    from codur.memory.persistent import Memory
    from codur.project.interpreter import Interpreter
    from codur.tools.context import ToolContext
    from codur.undo.snapshot import RunSnapshot


@dataclass(frozen=True)
class Session:
    config: CodurConfig
    ws: Workspace
    bus: EventBus
    run_id: str = field(default_factory=new_run_id)
    profile: str | None = None
    """Profile chosen on the command line (--profile); else llm.default_profile."""
    confirm: Ask | None = None
    """Asks the user a yes/no question, showing a diff first (None: nobody to ask, so an
    action the approval mode asks about stops the run)."""
    usage: Usage = field(default_factory=Usage)
    """The run's live meter of model calls and tokens (every client of the run counts
    into it; runtime.max_llm_calls is checked against it). The graph's state keeps what
    each step spent (`codur.graph.learned`); a resumed run's meter goes on from that."""
    redact: Redactor | None = None
    """Keeps secrets out of what the run writes (the recording); None: a Redactor of the
    process's secrets, to which the session adds those of every profile's `api_key_env`
    and of the workspace's `.env` files (`codur.redaction`)."""
    memory: Memory | None = None
    """Persistent memory (preferences, the answer cache, the node log); None: none is
    kept (memory.enabled off, or a session made by hand)."""
    chat_context: str = ""
    """What a `codur chat` session said before this task (session memory, as prompt
    text); empty outside a chat."""
    files_read: list[str] = field(default_factory=list)
    """Workspace-relative paths the run's tools read into the conversation, in order
    (`ToolContext.on_read`; a chat's session memory counts them as read)."""
    models: dict[str, Any] = field(default_factory=dict)
    """Chat models built so far, by profile (a `codur chat` session passes the same dict
    to each of its runs, so a model loads once)."""
    prompts: PromptBook = None  # type: ignore[assignment]
    """Every node's prompt (`codur.promptbook`); None: built from `config.prompts` (the
    Python API passes its own book, with the prompts set on it)."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set (from another thread: `Agent.arun` cancelled) to stop the run at its next
    node, model call or program: `check_cancelled` raises Cancelled there. A model call
    under way is cut (`ModelClient.cancel`)."""
    gate: Gate = field(init=False)
    """Which actions need the user's yes (approval.mode), shared with the tool context."""
    changes: Changes = field(init=False)
    """The one way the run changes a user's file (`codur.writes`): agent edits and tools
    alike; it holds the run's edit scope and snapshot."""
    _clients: dict[str, ModelClient] = field(default_factory=dict)
    _down: dict[str, str] = field(default_factory=dict)
    """Profiles whose model could not be reached or loaded in this run -> the profile
    answering instead (llm.fallback_order)."""
    _built: dict[str, Any] = field(default_factory=dict)
    """The services built on first use, by name (sandbox, interpreter, tools, recorder,
    replay)."""

    def __post_init__(self) -> None:
        self.usage.max_calls = self.config.runtime.max_llm_calls
        keys = [p.api_key_env for p in self.config.llm.profiles.values() if p.api_key_env]
        remember(secret_values(os.environ, keys))
        remember(dotenv_secrets(self.ws.root))
        gate = Gate(self.config.approval.mode, self.confirm, self.bus)
        built = {"gate": gate, "changes": Changes(self.ws, self.bus, gate)}
        built["redact"] = self.redact if self.redact is not None else Redactor()
        built["prompts"] = self.prompts or PromptBook(self.config.prompts)
        for name, value in built.items():  # frozen: set once, here
            object.__setattr__(self, name, value)

    @property
    def model_allowed(self) -> bool:
        """False with `--no-model` / `--max-llm-calls 0`: the model is never loaded."""
        return self.config.runtime.max_llm_calls > 0

    @property
    def sandbox(self) -> Sandbox:
        """How the run's programs are contained (decided once, from the config; the
        `sandbox` event says how, or why they are not confined)."""
        if "sandbox" not in self._built:
            from codur.sandbox.gitro import protect_git
            from codur.sandbox.repository import lookup

            box = replace(Sandbox.from_config(self.config), cancel=self.cancel)
            found, why = lookup(self.ws.root, self.config.tools.git_timeout_s)
            if why:
                self.bus.emit("warning", message=why)
            box = replace(box, repository=found)
            unprotected = ""
            keep = self._environment_kept()
            if self.config.sandbox.protect_git or keep:
                timeout = self.config.tools.run_timeout_s
                switch = self.config.sandbox.confine == "auto"
                git = self.config.sandbox.protect_git
                box, why = protect_git(box, self.ws.root, timeout, switch, keep, git)
                names = [*([".git"] if git else []), *(p.name for p in keep)]
                unprotected = f"{' and '.join(names)} stay writable: {why}" if why else ""
            self._built["sandbox"] = box
            self.bus.emit(
                "sandbox",
                confine=box.method,
                unconfined=box.unconfined,
                read_only=[str(p) for p in box.read_only],
                git_writable=unprotected,
            )
        return self._built["sandbox"]

    def _environment_kept(self) -> tuple[Path, ...]:
        """The project's virtualenv when it lies in the workspace (`sandbox.protect_env`)."""
        if not self.config.sandbox.protect_env:
            return ()
        from codur.project.interpreter import environment_inside

        env = environment_inside(self.ws.root, self.config.tools.python)
        return (env,) if env is not None else ()

    @property
    def interpreter(self) -> Interpreter:
        """The project's Python, which runs the run's programs and tests (found and probed
        once, in the run's sandbox; the `interpreter` event says which, a warning when it
        is Codur's own). ConfigError when `tools.python` names none."""
        if "interpreter" not in self._built:
            from codur.project.interpreter import find_interpreter

            tools = self.config.tools
            found = find_interpreter(self.ws.root, tools.python, self.sandbox, tools.run_timeout_s)
            self._built["interpreter"] = found
            if found.warning:
                self.bus.emit("warning", message=found.warning)
            self.bus.emit("interpreter", **found.as_dict())
        return self._built["interpreter"]

    def require_key(self, profile: str | None = None) -> None:
        """ConfigError (exit code 2) when the model of `profile` (default: the run's)
        needs an API key that is not set: said before anything runs, not at the first
        model call; unless the model is off, replayed, or llm.fallback_order has other
        profiles to answer (then the key's absence is the profile being unreachable)."""
        from codur.config.llm import require_key

        cfg = self.config
        if self.model_allowed and not cfg.runs.replay and not cfg.llm.fallback_order:
            require_key(*cfg.profile(profile or self.profile))

    def check_cancelled(self) -> None:
        """Raise Cancelled if the run was asked to stop (`cancel`)."""
        if self.cancel.is_set():
            raise Cancelled()

    def preferences(self) -> list[str]:
        """The user's standing preferences, for planning and coding prompts: a secret's
        value in one (an API key pasted in) reaches the model as ***, as in the logs."""
        found = self.memory.preferences() if self.memory is not None else []
        return [self.redact(text) for text in found]

    def tool_context(self) -> ToolContext:
        """The run's tool context (one per run: it owns the MCP server connections)."""
        if "tools" not in self._built:
            from codur.tools.context import ToolContext

            self._built["tools"] = ToolContext.from_session(self)
        return self._built["tools"]

    def note_read(self, path: str) -> None:
        """A tool read the workspace file `path` into the conversation."""
        if path not in self.files_read:
            self.files_read.append(path)

    @property
    def snapshot(self) -> RunSnapshot | None:
        """The workspace before the run, and what Codur changed since (the write path's:
        run_task begins it before anything runs; None in a session made by hand)."""
        return self.changes.snapshot

    @property
    def scope(self) -> EditScope | None:
        """What the run may change (decided at its start, knowing what the run learned
        since: the write path's; None: no limits)."""
        return self.changes.scope

    def text_of(self, path: str) -> str | None:
        """The file's text now (None: there is no such file; WorkspaceError: not text)."""
        return self.ws.read_text(path) if self.ws.resolve(path).is_file() else None

    def close(self) -> None:
        """Release what the run opened (MCP servers)."""
        if "tools" in self._built:
            self._built["tools"].close()

    def client(self, profile: str | None = None) -> ModelClient:
        """The model client for `profile` (default: --profile, else llm.default_profile),
        recording (`runs.record`) or replaying (`runs.replay`) as configured. A profile
        found unreachable in this run is answered by the one that replaced it."""
        name, prof = self.config.profile(profile or self.profile)
        while name in self._down:
            name, prof = self.config.profile(self._down[name])
        if name not in self._clients:
            runs = self.config.runs
            if runs.replay and "replay" not in self._built:
                from codur.models.replay import Recording, Replay

                self._built["replay"] = Replay(Recording.load(Path(runs.replay), self.usage.calls))
            if runs.record and "recorder" not in self._built:
                from codur.models.recording import Recorder

                self._built["recorder"] = Recorder(Path(runs.record), self.redact, self.usage.calls)
            self._clients[name] = ModelClient(
                name,
                prof,
                self.bus,
                self.usage,
                built=self.models,
                replay=self._built.get("replay"),
                recorder=self._built.get("recorder"),
                fallback=self._fall_back,
                cancel=self.cancel,
                prompts=self.prompts,
                max_context_tokens=self.config.llm.max_context_tokens,
            )
        return self._clients[name]

    def _fall_back(self, name: str, error: Exception) -> ModelClient | None:
        """The client of the next profile of llm.fallback_order for the unreachable
        profile `name` (logged as `model.fallback`); None when none is left. An agent's
        own model (`agent:NAME`) has none: the agent fails, and agent fallback applies."""
        if name.startswith("agent:"):
            return None
        down = {name, *self._down}
        order = [p.removeprefix("llm:") for p in self.config.llm.fallback_order]
        replacement = next((p for p in order if p not in down), None)
        if replacement is None:
            return None
        self._down[name] = replacement
        self.bus.emit("model.fallback", profile=name, to=replacement, error=str(error))
        return self.client(replacement)
