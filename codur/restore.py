"""Restore points: the original of every file Codur changes, saved before the first edit.

Kept in the user state folder (not the workspace), one folder per run with a manifest, so
a later `codur undo` can put files back exactly, and files Codur created can be removed.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from codur.workspace import Workspace


def restore_root() -> Path:
    from platformdirs import user_state_dir

    return Path(user_state_dir("codur")) / "restore"


@dataclass
class RestorePoint:
    ws: Workspace
    run_id: str
    root: Path = field(default_factory=restore_root)
    saved: dict[str, bool] = field(default_factory=dict)
    """Relative path -> whether it existed before the run."""

    @property
    def folder(self) -> Path:
        return self.root / self.run_id

    def save(self, rel_path: str) -> None:
        """Keep the original of `rel_path` (once per run) before it is first changed."""
        if rel_path in self.saved:
            return
        source = self.ws.resolve(rel_path)
        existed = source.is_file()
        if existed:
            backup = self.folder / "files" / rel_path
            backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, backup)
        self.saved[rel_path] = existed
        self.folder.mkdir(parents=True, exist_ok=True)
        manifest = {"workspace": str(self.ws.root), "run_id": self.run_id, "files": self.saved}
        tmp = self.folder / "manifest.json.tmp"
        tmp.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        tmp.replace(self.folder / "manifest.json")

    def original(self, rel_path: str) -> str | None:
        """The text `rel_path` had before the run (None: it did not exist)."""
        if not self.saved.get(rel_path):
            return None
        return (self.folder / "files" / rel_path).read_text(encoding="utf-8", errors="replace")

    def changed(self) -> list[str]:
        """Saved files whose text now differs from their original (or that appeared or
        disappeared), in path order."""
        found = []
        for path in sorted(self.saved):
            target = self.ws.resolve(path)
            now = target.read_bytes() if target.is_file() else None
            before = (self.folder / "files" / path).read_bytes() if self.saved[path] else None
            if now != before:
                found.append(path)
        return found
