"""The memory files: `.codur/memory.json` in a project, `memory.json` in the user config
folder. Each is read once when a run starts; what the run changes is kept as operations,
and at the end, under a lock, the file is read again, the operations are applied to what
it holds then and it is written back atomically: two Codur processes in one project do not
lose each other's preferences, answers or node records.

A file that cannot be read or does not hold what a memory file holds (bad JSON, wrong
shapes, unreadable) is never fatal: it is renamed aside (`memory.json.bad-<time>`, kept
for the user to look at), a warning says so, and the run starts with empty memory. If
it cannot even be renamed, the run goes on with empty memory and saves nothing there.
A known secret (`codur.redaction`) is written as '***': an answer, a preference or an
error that held an API key keeps none in the file.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from codur.config.trust import is_trusted, mark_written, was_written
from codur.errors import WorkspaceError
from codur.locking import locked
from codur.redaction import Redactor
from codur.workspace import CODUR_DIR, Workspace, ignore_all

FILE_NAME = "memory.json"
VERSION = 1

Warn = Callable[[str], None]
Operation = Callable[["MemoryData"], None]
"""One change to a memory file's content, applied again to what the file holds at save."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Preference(_Record):
    """A standing instruction ("always add type hints"), added to planning and coding prompts."""

    key: str
    text: str
    added: str
    """When it was added (ISO 8601, local time)."""


class CachedAnswer(_Record):
    """A `codur ask` answer, valid while the files it read hash as they did."""

    key: str
    question: str
    files: dict[str, str]
    """The files the answer read (tools' paths and its citations) -> sha256 ("" when the
    file did not exist)."""
    answer: str
    profile: str
    added: str


class NodeRecord(_Record):
    """One node that ran: which run, how long, how it ended."""

    run_id: str
    node: str
    duration_s: float
    error: str = ""
    at: str = ""


class MemoryData(_Record):
    """What one memory file holds (the user file uses only `preferences`)."""

    version: int = VERSION
    preferences: list[Preference] = []
    answers: dict[str, CachedAnswer] = {}
    """By key (`ask-...`), oldest first."""
    node_log: list[NodeRecord] = []


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S")


def project_file(root: Path) -> Path:
    """The project's memory file: ROOT/.codur/memory.json."""
    return root / CODUR_DIR / FILE_NAME


def user_file() -> Path:
    """The user-wide memory file (preferences only): e.g. ~/.config/codur/memory.json."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("codur")) / FILE_NAME


@dataclass
class MemoryFile:
    path: Path
    data: MemoryData = field(default_factory=MemoryData)
    writable: bool = True
    """False when a damaged file was found and could not be set aside: it is left alone."""
    pending: list[Operation] = field(default_factory=list)
    """The changes made since it was read, in order (save applies them to the file)."""
    git_ignored: bool = False
    """Keep a `.gitignore` of `*` beside it (a project's `.codur/`: Codur's own files,
    not the project's, so `git status` does not list them)."""
    guarded: bool = False
    """It comes with the folder (a project's): its preferences and answers reach prompts
    only while `trusted`."""
    trusted: bool = True
    """Codur wrote it as it is (its sha256 is in Codur's record of its writes,
    `codur.config.trust.mark_written`), or the user trusted it (`codur trust`), or it
    holds nothing a prompt would use."""

    @classmethod
    def open(cls, path: Path, warn: Warn, guarded: bool = False) -> MemoryFile:
        """The memory in `path` (empty when there is none; a damaged file is set aside).
        `guarded`: a file from the folder, trusted only as described at `trusted`."""
        data, writable = _read(path, warn)
        return cls(path, data, writable, guarded=guarded, trusted=_trusted(path, data, guarded))

    def change(self, operation: Operation) -> None:
        """Apply `operation` to the content now, and again to the file's at save."""
        operation(self.data)
        self.pending.append(operation)

    def save(self, warn: Warn) -> bool:
        """Apply the changes to what the file holds now and write it atomically, under the
        file's lock; a failure is a warning, never fatal. False: changes were left
        unsaved (the file cannot be written, or the write failed)."""
        if not self.pending:
            return True
        if not self.writable:
            return False
        folder = Workspace(self.path.parent)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with locked(self.path):
                data, self.writable = _read(self.path, warn)
                if not self.writable:
                    return False
                trusted = _trusted(self.path, data, self.guarded)  # as the file is now
                for operation in self.pending:
                    operation(data)
                kept = Redactor().strings(data.model_dump(mode="json"))  # no key in the file
                text = json.dumps(kept, indent=1, ensure_ascii=False)
                folder.write_text(self.path.name, text + "\n")
                self.trusted = _trusted(self.path, data, self.guarded, trusted)
                if self.guarded and self.trusted:
                    mark_written(self.path)  # by Codur, from trusted content
        except (OSError, WorkspaceError) as exc:
            warn(f"{self.path}: memory not saved: {exc}")
            return False
        self.data, self.pending = data, []
        if self.git_ignored:  # the memory is saved either way
            try:
                ignore_all(self.path.parent)
            except (OSError, WorkspaceError) as exc:
                warn(f"{self.path.parent}: its .gitignore (of *) not written: {exc}")
        return True


def _trusted(path: Path, data: MemoryData, guarded: bool, carried: bool = False) -> bool:
    """Whether `path` with content `data` may reach prompts: not guarded, nothing in it
    that prompts use, `carried` (written from trusted content), or in the trust store."""
    if not guarded or not (data.preferences or data.answers) or carried:
        return True
    return path.is_file() and (was_written(path) or is_trusted(path))


def _read(path: Path, warn: Warn) -> tuple[MemoryData, bool]:
    """The content of `path` (empty when missing) and whether it may be written (a
    damaged file is set aside: empty and writable; one that cannot be: not writable)."""
    if not path.exists():
        return MemoryData(), True
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict):
            raise ValueError(f"a JSON object was expected, not {type(raw).__name__}")
        return MemoryData.model_validate(raw), True
    except (OSError, ValueError, RecursionError) as exc:
        # bad JSON (RecursionError: nested too deep), not UTF-8, wrong shapes (pydantic)
        return MemoryData(), set_aside(path, _why(exc), warn)


def _why(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        return f"{where}: {first['msg']}"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc).split("\n")[0]


def set_aside(path: Path, why: str, warn: Warn) -> bool:
    """Rename a damaged memory file aside and say so; whether it was (else it is left
    where it is and not written)."""
    stamp = f"{path.name}.bad-{time.strftime('%Y%m%dT%H%M%S')}"
    aside = path.with_name(stamp)
    for n in range(2, 1000):  # an earlier damaged copy of the same second is kept too
        if not aside.exists() and not aside.is_symlink():
            break
        aside = path.with_name(f"{stamp}-{n}")
    try:
        path.rename(aside)
    except OSError as exc:
        warn(
            f"{path}: unreadable memory ({why}) and it cannot be set aside "
            f"({exc.strerror or exc}): running without it, and it is not saved"
        )
        return False
    warn(f"{path}: unreadable memory ({why}); set aside as {aside.name}, starting empty")
    return True
