"""The JSON-lines debug log (`log.path`, in the workspace's .codur folder by default);
every record goes through a `codur.redaction.Redactor`. Bounded: a run that finds it
`log.max_bytes` large first moves it to `rotated(path)`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from codur.errors import WorkspaceError, cannot_write
from codur.events import Event
from codur.redaction import Redactor
from codur.workspace import CODUR_DIR, own_folder

if TYPE_CHECKING:
    from codur.config import CodurConfig
    from codur.workspace import Workspace


def rotated(path: Path) -> Path:
    """Where the log at `path` goes once it is `log.max_bytes` large: the runs before."""
    return path.with_name(path.name + ".1")


class JsonlLog:
    """An event sink appending one JSON object per line to the debug log."""

    def __init__(
        self,
        path: Path,
        run_id: str,
        redact: Redactor,
        max_field_chars: int,
        max_bytes: int | None = None,
    ) -> None:
        self.path = path
        self.run_id = run_id
        self.redact = redact
        self.max_field_chars = max_field_chars
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            if path.parent.name == CODUR_DIR:
                own_folder(path.parent)  # with its `.gitignore`, as a run's lock makes it
            path.parent.mkdir(parents=True, exist_ok=True)
            if max_bytes is not None and _size(path) >= max_bytes:
                os.replace(path, rotated(path))  # a run's records stay in one file
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


def _size(path: Path) -> int:
    """The size of the file at `path` (0: none; a symlink is left to `open` to refuse)."""
    try:
        return path.lstat().st_size if path.is_file() and not path.is_symlink() else 0
    except OSError:
        return 0
