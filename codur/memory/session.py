"""Session memory: what one `codur chat` session carries from a task to the next.

- the files read into context (`@file`), each keyed by path and content hash (with its
  size and mtime, so an unchanged file is not hashed again): a file changed on disk since
  is no longer "read", it is listed as changed, and the next task reads it afresh;
- the last exchanges (`memory.max_exchanges`), each task and reply cut to
  `memory.max_exchange_chars`.

It lives in the chat process only; nothing of it is written to disk.
"""

from __future__ import annotations

import hashlib
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from codur.config.sections import MemoryConfig
from codur.errors import WorkspaceError
from codur.resources import prompt
from codur.workspace import Workspace


@dataclass(frozen=True)
class FileSeen:
    path: str
    sha256: str
    size: int
    mtime_ns: int


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

    def _stat(self, path: str) -> tuple[Path, int, int] | None:
        try:
            target = Workspace(self.root).resolve(path)
            info = target.stat()
        except (OSError, WorkspaceError):
            return None
        return target, info.st_size, info.st_mtime_ns

    def note_read(self, path: str) -> None:
        """`path` was read into a task's context, as it is now."""
        found = self._stat(path)
        if found is None:
            self.files.pop(path, None)
            return
        target, size, mtime = found
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        self.files[path] = FileSeen(path, digest, size, mtime)

    def is_current(self, path: str) -> bool:
        """Whether `path` was read in this session and is unchanged on disk since."""
        seen = self.files.get(path)
        found = self._stat(path)
        if seen is None or found is None:
            return False
        target, size, mtime = found
        if (size, mtime) == (seen.size, seen.mtime_ns):
            return True
        return size == seen.size and hashlib.sha256(target.read_bytes()).hexdigest() == seen.sha256

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

    def context(self) -> str:
        """What the next task's prompts are told about the session so far ("" at first)."""
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
        return prompt("session_context.md").format(
            exchanges="\n".join(lines) or "(none)",
            files=", ".join(sorted(self.files)) or "(none)",
            changed=", ".join(changed) or "(none)",
        )
