"""Session memory: what one `codur chat` session carries from a task to the next.

- the files read into context (`@file`), each keyed by path and content hash: a file
  changed on disk since is no longer "read", it is listed as changed, and the next task
  reads it afresh;
- the last exchanges (`memory.max_exchanges`), each task and reply cut to
  `memory.max_exchange_chars`.

It lives in the chat process only; nothing of it is written to disk.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from codur.config.sections import MemoryConfig
from codur.errors import WorkspaceError
from codur.workspace import Workspace

if TYPE_CHECKING:
    from codur.promptbook import PromptBook


@dataclass(frozen=True)
class FileSeen:
    path: str
    sha256: str
    """The content's hash when it was read (not its mtime: a file rewritten within the
    clock's granularity keeps its mtime, as git's "racy clean" files do)."""


@dataclass(frozen=True)
class Exchange:
    task: str
    status: str
    """How the task ended (verified, done, stuck, error, ...)."""
    reply: str = ""
    """The answer shown, or the run's message."""
    files_changed: tuple[str, ...] = ()
    last_error: str = ""


def cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class SessionMemory:
    root: Path
    config: MemoryConfig = field(default_factory=MemoryConfig)
    files: dict[str, FileSeen] = field(default_factory=dict)
    exchanges: deque[Exchange] = field(init=False)

    def __post_init__(self) -> None:
        self.exchanges = deque(maxlen=self.config.max_exchanges)

    def _digest(self, path: str) -> str | None:
        try:
            return hashlib.sha256(Workspace(self.root).resolve(path).read_bytes()).hexdigest()
        except (OSError, WorkspaceError):
            return None

    def note_read(self, path: str) -> None:
        """`path` was read into a task's context, as it is now."""
        digest = self._digest(path)
        if digest is None:
            self.files.pop(path, None)
        else:
            self.files[path] = FileSeen(path, digest)

    def is_current(self, path: str) -> bool:
        """Whether `path` was read in this session and is unchanged on disk since."""
        seen = self.files.get(path)
        return seen is not None and self._digest(path) == seen.sha256

    def refresh(self) -> list[str]:
        """Drop the files changed on disk since they were read; their paths."""
        changed = [p for p in self.files if not self.is_current(p)]
        for path in changed:
            del self.files[path]
        return changed

    def remember(self, exchange: Exchange) -> None:
        limit = self.config.max_exchange_chars
        self.exchanges.append(
            Exchange(
                cut(exchange.task, limit),
                exchange.status,
                cut(exchange.reply, limit),
                exchange.files_changed,
                cut(exchange.last_error, limit),
            )
        )

    def context(self, book: PromptBook) -> str:
        """What the next task's prompts are told about the session so far (`book`'s
        session_context prompt; "" at first)."""
        changed = self.refresh()
        if not self.exchanges and not self.files and not changed:
            return ""
        lines = []
        for n, e in enumerate(self.exchanges, 1):
            lines.append(f"{n}. task: {e.task}\n   ended: {e.status}")
            if e.files_changed:
                lines.append(f"   changed: {', '.join(e.files_changed)}")
            if e.reply:
                lines.append(f"   reply: {e.reply}")
            if e.last_error:
                lines.append(f"   last error: {e.last_error}")
        return book.render(
            "session_context",
            exchanges="\n".join(lines) or "(none)",
            files=", ".join(sorted(self.files)) or "(none)",
            changed=", ".join(changed) or "(none)",
        )
