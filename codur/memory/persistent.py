"""Persistent memory: the project's file and the user's, behind one API.

- preferences (project and user scope), added to planning and coding prompts;
- the `codur ask` answer cache, keyed by the question and valid while the files the
  answer read are unchanged (sha256 of each);
- the node log: the last `memory.max_node_log` nodes that ran (node, run, time, error).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codur.config.sections import MemoryConfig
from codur.errors import WorkspaceError
from codur.events import Event
from codur.memory.store import (
    CachedAnswer,
    MemoryData,
    MemoryFile,
    NodeRecord,
    Preference,
    Warn,
    now,
    project_file,
    user_file,
)
from codur.workspace import CODUR_DIR, Workspace

Scope = Literal["project", "user"]
NODE_LOG = "node-log"
"""The key `codur memory forget` takes for the whole node log."""


def normalize(text: str) -> str:
    """`text` with its whitespace collapsed (how questions and preferences are compared)."""
    return " ".join(text.split())


def _key(prefix: str, text: str) -> str:
    digest = hashlib.sha256(normalize(text).casefold().encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:8]}"


def file_digests(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """sha256 of each workspace file now ("" for one that is missing, unreadable or
    outside the workspace), by path."""
    ws = Workspace(root)
    out = {}
    for path in sorted(set(paths)):
        try:
            out[path] = hashlib.sha256(ws.resolve(path).read_bytes()).hexdigest()
        except (OSError, WorkspaceError):
            out[path] = ""
    return out


@dataclass
class Memory:
    root: Path
    project: MemoryFile
    user: MemoryFile
    config: MemoryConfig

    @classmethod
    def open(
        cls,
        root: Path,
        config: MemoryConfig,
        warn: Warn,
        user: Path | None = None,
        force: bool = False,
    ) -> Memory | None:
        """The memory of the project at `root` and of the user (None: memory.enabled is
        off, unless `force`: `codur memory` works on the files either way). Damaged files
        are set aside with a warning (see store.py)."""
        if not config.enabled and not force:
            return None
        folder = root / CODUR_DIR
        if folder.is_symlink() or not folder.resolve().is_relative_to(root.resolve()):
            warn(f"{folder} leads outside the folder: its memory is neither read nor written")
            project = MemoryFile(project_file(root), writable=False, guarded=True)
        else:
            project = MemoryFile.open(project_file(root), warn, guarded=True)
        project.git_ignored = True
        if not project.trusted:
            warn(
                f"{project.path} was not written by Codur as it is: its preferences and "
                "cached answers are not used (look: codur memory show; use them: codur trust)"
            )
        return cls(root, project, MemoryFile.open(user or user_file(), warn), config)

    def _file(self, scope: Scope) -> MemoryFile:
        return self.user if scope == "user" else self.project

    # -- preferences -------------------------------------------------------------------
    def preferences(self) -> list[str]:
        """The preferences for a prompt: the user's, then the project's, each cut to
        `memory.max_preference_chars`; past `memory.max_preference_prompt_chars` in all
        the oldest are left out, and a last line says how many."""
        files = (self.user, self.project) if self.project.trusted else (self.user,)
        every = [p for f in files for p in f.data.preferences]
        cut = self.config.max_preference_chars
        texts = [p.text if len(p.text) <= cut else p.text[: cut - 3] + "..." for p in every]
        budget, kept = self.config.max_preference_prompt_chars, set()
        for index in sorted(range(len(every)), key=lambda i: every[i].added, reverse=True):
            if len(texts[index]) > budget:
                break
            budget -= len(texts[index])
            kept.add(index)
        shown = [text for index, text in enumerate(texts) if index in kept]
        if len(kept) < len(every):
            left = len(every) - len(kept)
            shown.append(f"({left} older preference(s) not shown: the prompt has no room)")
        return shown

    def remember_preference(self, text: str, scope: Scope = "project") -> Preference:
        """Keep `text` as a standing preference (the same text twice is kept once);
        ValueError for an empty one or one longer than `memory.max_preference_chars`."""
        text = normalize(text)
        if not text:
            raise ValueError("a preference needs some text")
        if len(text) > self.config.max_preference_chars:
            raise ValueError(
                f"a preference is at most {self.config.max_preference_chars} characters "
                f"(memory.max_preference_chars); this one has {len(text)}"
            )
        key = _key("pref", text)
        memory = self._file(scope)
        found = next((p for p in memory.data.preferences if p.key == key), None)
        if found is not None:
            return found
        preference = Preference(key=key, text=text, added=now())
        limit = self.config.max_preferences

        def add(data: MemoryData) -> None:
            if all(p.key != key for p in data.preferences):
                data.preferences = [*data.preferences, preference][-limit:]

        memory.change(add)
        return preference

    # -- the ask cache -------------------------------------------------------------------
    def cached_answer(self, question: str, profile: str) -> CachedAnswer | None:
        """The answer kept for `question` by the same model and settings (`profile`, as
        given to keep_answer), if every file it read is as it was then."""
        if not self.config.cache_answers or not self.project.trusted:
            return None
        entry = self.project.data.answers.get(_key("ask", question))
        if entry is None or entry.question != normalize(question) or entry.profile != profile:
            return None
        return entry if file_digests(self.root, entry.files) == entry.files else None

    def keep_answer(self, question: str, files: Iterable[str], answer: str, profile: str) -> None:
        """Cache `answer` to `question`, keyed by the files it read as they are now."""
        if not self.config.cache_answers or self.config.max_cached_answers == 0:
            return
        key = _key("ask", question)
        entry = CachedAnswer(
            key=key,
            question=normalize(question),
            files=file_digests(self.root, files),
            answer=answer,
            profile=profile,
            added=now(),
        )
        limit = self.config.max_cached_answers

        def keep(data: MemoryData) -> None:
            data.answers.pop(key, None)
            data.answers[key] = entry
            while len(data.answers) > limit:
                data.answers.pop(next(iter(data.answers)))

        self.project.change(keep)

    # -- the node log -------------------------------------------------------------------
    def log_node(self, run_id: str, node: str, duration_s: float, error: str = "") -> None:
        if self.config.max_node_log == 0:
            return
        record = NodeRecord(run_id=run_id, node=node, duration_s=duration_s, error=error, at=now())
        limit = self.config.max_node_log

        def append(data: MemoryData) -> None:
            data.node_log.append(record)
            del data.node_log[: max(0, len(data.node_log) - limit)]

        self.project.change(append)

    def node_sink(self, run_id: str) -> Callable[[Event], None]:
        """An event sink keeping each finished node (`node.end`) of run `run_id`."""

        def sink(event: Event) -> None:
            if event.kind == "node.end":
                data = event.data
                self.log_node(run_id, data["node"], data["duration_s"], data.get("error", ""))

        return sink

    # -- forgetting ---------------------------------------------------------------------
    def forget(self, key: str) -> str | None:
        """Remove the entry named `key` (a preference's or cached answer's key, or
        `node-log`); what was removed, or None if nothing has that key."""
        if key == NODE_LOG:  # always there: an empty one is forgotten already
            if not self.project.data.node_log:
                return "the node log (0 records)"
            count = len(self.project.data.node_log)
            self.project.change(_clear_node_log)
            return f"the node log ({count} records)"
        for memory in (self.project, self.user):
            found = next((p for p in memory.data.preferences if p.key == key), None)
            if found is not None:
                memory.change(functools.partial(_drop_preference, key))
                return f"preference: {found.text}"
        entry = self.project.data.answers.get(key)
        if entry is not None:
            self.project.change(functools.partial(_drop_answer, key))
            return f"cached answer: {entry.question}"
        return None

    def clear(self, scope: Scope) -> None:
        """Forget everything in one scope's file (the user's holds only preferences)."""
        self._file(scope).change(_clear)

    def save(self, warn: Warn) -> bool:
        """Write back what changed (atomically; a failure is a warning). False: some
        change was not saved."""
        project = self.project.save(warn)
        return self.user.save(warn) and project


def _clear_node_log(data: MemoryData) -> None:
    data.node_log = []


def _drop_preference(key: str, data: MemoryData) -> None:
    data.preferences = [p for p in data.preferences if p.key != key]


def _drop_answer(key: str, data: MemoryData) -> None:
    data.answers.pop(key, None)


def _clear(data: MemoryData) -> None:
    data.preferences, data.answers, data.node_log = [], {}, []
