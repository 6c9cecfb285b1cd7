"""The JSON-lines debug log, and the redaction that keeps secrets out of it."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codur.errors import WorkspaceError
from codur.events import Event

if TYPE_CHECKING:
    from codur.config import CodurConfig
    from codur.workspace import Workspace

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)
_SECRET_FIELD = re.compile(r"(api_key|apikey|authorization|password|secret|token)$", re.I)
MIN_SECRET_LEN = 6


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (API_KEY, TOKEN...)."""
    return bool(_SECRET_NAME.search(name))


def secret_values(environ: Mapping[str, str], extra_names: Iterable[str] = ()) -> set[str]:
    """Values of environment variables that look like secrets, or that config names."""
    names = {n for n in environ if is_secret_name(n)} | set(extra_names)
    return {environ[n] for n in names if len(environ.get(n, "")) >= MIN_SECRET_LEN}


class Redactor:
    """Replaces known secret values (and values of secret-named fields) with '***'."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def __call__(self, value: Any, limit: int | None = None) -> Any:
        if isinstance(value, str):
            for secret in self.secrets:
                value = value.replace(secret, "***")
            if limit is not None and len(value) > limit:
                value = f"{value[:limit]}... [{len(value) - limit} more chars]"
            return value
        if isinstance(value, Mapping):
            return {
                str(k): "***" if _SECRET_FIELD.search(str(k)) and v else self(v, limit)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple | set):
            return [self(v, limit) for v in value]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self(str(value), limit)


class JsonlLog:
    """An event sink appending one JSON object per line to the debug log."""

    def __init__(self, path: Path, run_id: str, redact: Redactor, max_field_chars: int) -> None:
        self.path = path
        self.run_id = run_id
        self.redact = redact
        self.max_field_chars = max_field_chars
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o644)  # never through a symlink (ELOOP)
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
