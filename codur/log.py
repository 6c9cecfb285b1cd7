"""The JSON-lines debug log; every record goes through a `codur.redaction.Redactor`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from codur.errors import WorkspaceError, cannot_write
from codur.events import Event
from codur.redaction import Redactor

if TYPE_CHECKING:
    from codur.config import CodurConfig
    from codur.workspace import Workspace


class JsonlLog:
    """An event sink appending one JSON object per line to the debug log."""

    def __init__(self, path: Path, run_id: str, redact: Redactor, max_field_chars: int) -> None:
        self.path = path
        self.run_id = run_id
        self.redact = redact
        self.max_field_chars = max_field_chars
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, flags, 0o644)  # never through a symlink (ELOOP)
        except OSError as exc:  # a read-only or unwritable folder is no bug
            if (machine := cannot_write(exc, path, writing=True)) is not None:
                raise machine from exc
            raise
        # a name that is no UTF-8 (a surrogate escape) is written as its JSON escape
        self._fh = open(fd, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115

    def __call__(self, event: Event) -> None:
        record = {"ts": round(event.ts, 3), "run": self.run_id, "event": event.kind}
        record.update(self.redact(event.data, self.max_field_chars))
        self._fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()


def log_path(cfg: CodurConfig, ws: Workspace) -> Path:
    """Where the debug log goes: `log.path`, confined to the workspace like any write
    (a path or symlink leading outside is refused; the file itself is never a symlink)."""
    path = Path(cfg.log.path).expanduser()
    try:
        ws.resolve(path)
    except WorkspaceError as exc:
        raise WorkspaceError(f"log.path {cfg.log.path!r}: {exc}") from None
    target = ws.root / path
    if target.is_symlink():
        raise WorkspaceError(
            f"log.path {cfg.log.path!r}: {target} is a symlink; Codur does not write "
            "through it (remove it, or set log.path)"
        )
    return target
