"""Agents that are CLIs (Codex, Claude Code: agent:codex, agent:claude_code): the
CLI runs non-interactively in the workspace and edits the files itself; Codur reads the
outcome from the process.

One attempt: the CLI is found (not installed: AgentUnavailable naming what to install),
approved like any program Codur starts (`approval.mode`: asked outside full-auto, the
question naming the executable; a no fails the attempt before anything starts), given
a prompt (prompts/external_agent.md: the task, the files it is about, how the check
fails, earlier attempts; not the files' text, which the CLI reads itself) as an argument,
and run through `codur.process.run_process` in the run's sandbox (scrubbed environment
but for the CLI's own key variables, writes confined to the workspace but its `.git`,
its temp folder and the parts of the CLI's state it must write, every descendant killed
at the end), with stdin closed, its output captured and the agent's `timeout_s`. The
workspace is compared before and after (`codur.agents.changes`: what it changed, held
to the edit scope); the reply is read from its output (`CliSpec.parse`); a non-zero
exit, a timeout, an output flood, an error the CLI reports or a `.git` it made or
changed (`gitguard`: removed) is a failure (`AgentResult.failed`, with the end of its
stderr), after which agents.preferences.fallback_order applies.

Before anything starts, AgentUnavailable (fallback_order applies) when the workspace's
`.git` cannot be kept read-only: it is a symbolic link (binding it would protect its
target, not the link, which could be replaced), or confinement is on but neither a mount
namespace (Landlock's way) nor bubblewrap works here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from codur.agents import changes, gitguard
from codur.agents.fit import clip_lines
from codur.agents.proposal import digest
from codur.agents.registry import AgentRequest, AgentResult
from codur.approval import Action
from codur.config.agents import AgentConfig
from codur.errors import AgentUnavailable
from codur.memory import preferences_section
from codur.process import ProcessResult, run_process
from codur.sandbox.gitro import protect_git
from codur.sandbox.repository import GIT

if TYPE_CHECKING:
    from codur.promptbook import PromptBook
    from codur.sandbox import Sandbox
    from codur.session import Session

MAX_EVIDENCE_LINES = 200
"""The failure shown in the prompt is cut to its first and last lines past this."""
TAIL_LINES = 8
"""Lines of the CLI's stderr (or output) an error message ends with."""


@dataclass(frozen=True)
class Parsed:
    """What a CLI's output says: its final reply, an error it reports although it may
    have exited 0 (None: none), and its token usage when it tells."""

    reply: str
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CliSpec:
    """What differs between CLI agents."""

    executable: str
    """The command looked up on PATH when the config names none."""
    install: str
    """How to install it, for the message when it is missing."""
    env_allow: tuple[str, ...]
    """Variables it keeps although they look like secrets (its API keys)."""
    writable: tuple[str, ...]
    """Folders of its state it writes (sessions, logs), `~` expanded; made if missing.
    Never the whole state folder: its settings there name commands it runs later,
    outside Codur's sandbox."""
    files: tuple[str, ...]
    """Files of its state it rewrites in place (a refreshed login), `~` expanded;
    writable when present."""
    argv: Callable[[str, str, AgentConfig], list[str]]
    """(the executable, the prompt, the agent's config) -> the command line."""
    parse: Callable[[str], Parsed]
    """Its standard output -> what it says."""


@dataclass
class CliAgent:
    spec: CliSpec
    reference: str
    config: AgentConfig
    loops: ClassVar[bool] = False  # the CLI runs its own loop, as a whole
    proposes: ClassVar[bool] = False  # it writes the files itself

    def run(self, request: AgentRequest, session: Session) -> AgentResult:
        from langchain_core.messages import AIMessage

        executable = self.find()
        sandbox = self.sandbox(session)
        what = (
            f"run {self.reference} ({executable}) in the workspace (it edits files and "
            "may run commands)"
        )
        if not session.gate.approve(Action.RUN, what):  # before anything is started
            no = f"the user said no to running {self.reference} ({executable}); nothing was started"
            return AgentResult("", error=no, failed=True)
        if sandbox.confiner is not None:  # a confined CLI could not make them
            for folder in self.state_folders():
                folder.mkdir(parents=True, exist_ok=True)
        text = task_prompt(request, session.prompts)
        argv = self.spec.argv(executable, text, self.config)
        shown = ["PROMPT" if a == text else a for a in argv]
        before = changes.state(session)
        gits = gitguard.entries(session.ws.root)
        with session.bus.span("agent.run", agent=self.reference, command=shown, prompt=text) as end:
            with session.changes.program(session.ws.root):
                result = run_process(
                    argv,
                    session.ws.root,
                    self.config.timeout_s,
                    self.config.output_limit_bytes,
                    sandbox=sandbox,
                )
            parsed = self.spec.parse(result.stdout)
            end.update(exit_code=result.exit_code, timed_out=result.timed_out, reply=parsed.reply)
            end.update(parsed.usage)
        planted = gitguard.undo_planted(session.ws.root, gits, self.reference)
        files, notes = changes.settle(session, before, changes.state(session), self.reference)
        error = planted or self.failure(result, parsed)
        said = parsed.reply or error or ""  # what the conversation keeps of the attempt
        return AgentResult(
            parsed.reply,
            messages=[AIMessage(said, name=self.reference.replace(":", "_"))],
            files_changed=files,
            error=error,
            notes=notes,
            digest=digest(parsed.reply) if parsed.reply else "",
            failed=error is not None,
        )

    def find(self) -> str:
        """The executable's path; AgentUnavailable naming what to install."""
        command = os.path.expanduser(self.config.command or self.spec.executable)
        found = shutil.which(command)
        if found is None:
            where = "" if self.config.command is None else f" (agents.configs: command {command})"
            raise AgentUnavailable(
                f"{self.reference} needs the `{self.spec.executable}` CLI{where}: "
                f"{self.spec.install}"
            )
        return found

    def sandbox(self, session: Session) -> Sandbox:
        """The run's sandbox, letting the CLI keep its key variables and write its state
        (its state folders are made, if missing, once the run is approved), but
        not the workspace's `.git` (a hook or a config written there would run later,
        unconfined, the next time git runs); AgentUnavailable when it cannot be kept so."""
        root = session.ws.root.resolve()
        if (root / GIT).is_symlink():
            raise AgentUnavailable(
                f"{self.reference} cannot run here: the workspace's .git is a symbolic link "
                f"(to {os.readlink(root / GIT)}), which Codur cannot keep read-only; use a "
                "workspace whose .git is a folder or a file"
            )
        timeout = session.config.tools.run_timeout_s
        box, why = protect_git(session.sandbox, root, timeout, also=tuple(gitguard.nested(root)))
        if why:
            raise AgentUnavailable(
                f"{self.reference} cannot run confined here: the workspace's .git cannot be "
                f"kept read-only ({why}); install bubblewrap, or run unconfined with "
                "-o sandbox.confine=off"
            )
        allow = self.config.env_allow if self.config.env_allow is not None else self.spec.env_allow
        writable = self.state_folders()
        files = [] if self.config.writable is not None else self.spec.files
        writable += [Path(f).expanduser().resolve() for f in files]
        return replace(
            box,
            env_allow=(*box.env_allow, *allow),
            writable=(*box.writable, *writable),
        )

    def state_folders(self) -> list[Path]:
        """The folders of its state the CLI may write (`writable`)."""
        folders = self.config.writable if self.config.writable is not None else self.spec.writable
        return [Path(f).expanduser().resolve() for f in folders]

    def failure(self, result: ProcessResult, parsed: Parsed) -> str | None:
        """Why the run failed, in one line ending with the end of its stderr; None: it
        did not."""
        ref = self.reference
        if result.timed_out:
            why = f"{ref} did not finish within {self.config.timeout_s:g} s (timeout_s); stopped"
        elif result.truncated:
            limit = self.config.output_limit_bytes
            why = f"{ref} printed more than {limit} bytes (output_limit_bytes); stopped"
        elif result.exit_code != 0:
            why = f"{ref} exited with code {result.exit_code}"
        elif parsed.error:
            return f"{ref} reported an error: {parsed.error}"
        else:
            return None
        detail = tail(result.stderr) or parsed.error or tail(result.stdout)
        return f"{why}: {detail}" if detail else why


def tail(text: str, lines: int = TAIL_LINES) -> str:
    """The last non-empty `lines` lines of `text`, joined by ' | '."""
    kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
    return " | ".join(kept)


def task_prompt(request: AgentRequest, book: PromptBook) -> str:
    """What the CLI is asked: the task, the files it is about (named, not shown: it reads
    them), how the check fails on them, what earlier attempts did, the preferences."""
    evidence = ""
    if request.evidence:
        failure = clip_lines(request.evidence.strip(), MAX_EVIDENCE_LINES)
        evidence = book.render("coder_evidence", failure=failure)
    attempts = ""
    if request.attempts:
        listed = "\n".join(f"- {line}" for line in request.attempts)
        attempts = book.render("coder_attempts", attempts=listed)
    context = f"\n\n{request.context}" if request.context else ""
    return book.render(
        "external_agent",
        task=request.task,
        files=", ".join(request.files) or "find them in the folder",
        evidence=evidence,
        attempts=attempts,
        preferences=preferences_section(book, request.preferences),
        context=context,
    ).strip()


def agent_config(config: AgentConfig | None, type_: str) -> AgentConfig:
    """The entry's config, or the defaults of a registered CLI agent named directly."""
    return config if config is not None else AgentConfig(type=type_)  # type: ignore[arg-type]
