"""`codur chat`: a prompt with history where each line is a task, run as `codur "TASK"`
runs it (`codur.run.task_command`), with the session's memory carried from one to the next
(the files read, the last exchanges) and its models loaded once.

Slash commands: /undo, /diff (the last run, as `codur undo` / `codur diff`), /memory
(`codur memory show`), /profile [--user] TEXT (keep TEXT as a preference), /model [NAME]
(show or switch the LLM profile, as `-m NAME`), /help, /exit. Ctrl-D
ends the session; Ctrl-C at the prompt clears the line; Ctrl-C during a task stops it
and the session, as it stops `codur "TASK"`; SIGTERM or SIGHUP ends the session at the
prompt too (exit code 143, 129).
"""

from __future__ import annotations

import dataclasses
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.config import LoadedConfig
from codur.errors import CodurError, ExitCode, Interrupted, UsageError
from codur.interrupt import rearm
from codur.memory.session import SessionMemory
from codur.ui import IO

PROMPT = "codur> "
HELP = """\
Each line is a task for Codur in {root}. Commands:
  /undo           put back what the last run changed
  /diff           what the last run changed
  /memory         preferences, cached answers, the node log
  /profile TEXT   keep TEXT as a preference ("always add type hints"; --user TEXT:
                  for all your projects)
  /model [NAME]   the LLM profile the tasks use; NAME: switch to it (codur profiles)
  /help           this text
  /exit           end the session (or Ctrl-D)"""


def history_file() -> Path:
    """Where the prompt's history is kept: e.g. ~/.local/state/codur/chat_history."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("codur")) / "chat_history"


def line_reader() -> Callable[[str], str]:
    """Read one line with history: prompt_toolkit when installed, else readline; lines
    piped in (no terminal) are read as they come. Raises EOFError at Ctrl-D (the end of
    the input) and KeyboardInterrupt at Ctrl-C."""
    if not sys.stdin.isatty():
        return input
    path = history_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
    except ImportError:
        return _readline_reader(path)
    session: PromptSession[str] = PromptSession(history=FileHistory(str(path)))
    return lambda text: session.prompt(text)


def _readline_reader(path: Path) -> Callable[[str], str]:
    import readline

    if path.exists():
        readline.read_history_file(path)

    def read(text: str) -> str:
        line = input(text)
        readline.append_history_file(1, path)
        return line

    path.touch()
    return read


@dataclass
class Chat:
    loaded: LoadedConfig
    root: Path
    io: IO
    profile: str | None = None
    verbose: bool = False
    memory: SessionMemory = field(init=False)
    models: dict[str, Any] = field(default_factory=dict)
    """The chat models built by the session's runs (a model loads once)."""

    def __post_init__(self) -> None:
        self.memory = SessionMemory(self.root, self.loaded.config.memory)

    def loop(self, read: Callable[[str], str]) -> int:
        """Read and act on lines until /exit or Ctrl-D; the exit code of the last line
        that ran (a task's, as `codur "TASK"` would exit; a refused line's; 0 for none), so
        a script piping tasks in can tell how its last one went."""
        self.io.info(f"codur chat in {self.root}: a task a line; /help lists the commands")
        code = int(ExitCode.OK)
        while True:
            try:
                line = read(PROMPT).strip()
            except KeyboardInterrupt as exc:
                if isinstance(exc, Interrupted) and exc.signum != signal.SIGINT:
                    raise  # SIGTERM, SIGHUP: the session ends (exit 143, 129)
                rearm()  # Ctrl-C clears the line, and so does the next one
                continue
            except EOFError:
                return code
            if not line:
                continue
            if line in ("/exit", "/quit"):
                return code
            try:
                code = self.handle(line)
            except CodurError as exc:  # this line failed; the session goes on
                self.io.error(str(exc))
                code = int(exc.exit_code)

    def handle(self, line: str) -> int:
        """Act on one line; its exit code."""
        if line.startswith("/"):
            name, _, rest = line.partition(" ")
            command = COMMANDS.get(name)
            if command is None:
                self.io.error(f"unknown command {name} (/help lists them)")
                return int(ExitCode.USAGE)
            said = command(self, rest.strip())
            return int(said) if isinstance(said, int) else int(ExitCode.OK)
        from codur.run import task_command

        code = task_command(
            self.loaded,
            self.root,
            line,
            profile=self.profile,
            verbose=self.verbose,
            json_mode=False,
            chat=self.memory,
            models=self.models,
        )
        self.loaded = dataclasses.replace(self.loaded, warnings=[])  # said once
        return int(code)

    # -- slash commands -----------------------------------------------------------------
    def undo(self, _rest: str) -> int:
        from codur.undo.commands import undo
        from codur.workspace import Workspace

        return undo(Workspace(self.root), self.loaded.config, None, False, self.io)

    def diff(self, _rest: str) -> None:
        from codur.undo.commands import diff
        from codur.workspace import Workspace

        diff(Workspace(self.root), self.loaded.config, None, self.io)

    def show_memory(self, _rest: str) -> None:
        from codur.memory.commands import open_memory, show

        show(open_memory(self.root, self.loaded.config, self.io), self.io)

    def remember(self, text: str) -> None:
        from codur.memory.commands import add, open_memory

        flag, _, rest = text.partition(" ")
        user = flag == "--user"  # `/profile --user` alone keeps nothing, not "--user"
        text = rest.strip() if user else text
        if not text:
            raise UsageError("/profile needs the preference: /profile always add type hints")
        memory = open_memory(self.root, self.loaded.config, self.io)
        add(memory, text, "user" if user else "project", self.io)

    def model(self, name: str) -> None:
        """Show the LLM profile the session's tasks use and the others; with NAME, switch
        to it (an unknown one: an error, and the profile stays)."""
        config = self.loaded.config
        chosen, profile = config.profile(name or self.profile)
        if name:
            self.profile = chosen
            self.io.info(f"model profile now {chosen}: {profile.provider} {profile.model}")
            return
        others = ", ".join(sorted(set(config.llm.profiles) - {chosen})) or "none"
        self.io.info(
            f"model profile {chosen}: {profile.provider} {profile.model} "
            f"(others: {others}; /model NAME switches)"
        )

    def help(self, _rest: str) -> None:
        self.io.info(HELP.format(root=self.root))


COMMANDS: dict[str, Callable[[Chat, str], None]] = {
    "/undo": Chat.undo,
    "/diff": Chat.diff,
    "/memory": Chat.show_memory,
    "/profile": Chat.remember,
    "/model": Chat.model,
    "/help": Chat.help,
}
