"""The oracle as the run found it, and how a run's programs are kept from changing it:
the captured oracle files, the files pytest loads by name, the compiled modules and the
project's site hooks at the start, what differs now (`tampered`), and putting it back
(`restore_oracle`). A part of `codur.scope.EditScope`, whose fields it reads."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from codur.scope import site_hooks
from codur.scope.compiled import planted
from codur.scope.oracle import created


class CapturedOracle:
    """The captured-oracle part of an edit scope (`EditScope` has these fields)."""

    root: Path
    oracle: dict[str, bytes | None]
    oracle_editable: tuple[str, ...]
    present: tuple[str, ...] | None
    compiled: dict[str, str] | None
    site_dirs: tuple[str, ...]
    site_hooks: dict[str, bytes]

    def watch_site(self, folders: Sequence[str]) -> None:
        """Record the site hooks of the project's Python (`codur.scope.site_hooks`) as they
        are now: one created, changed or deleted later is tampering."""
        self.site_dirs = tuple(folders)
        self.site_hooks = site_hooks.record(folders)

    @property
    def site_digests(self) -> dict[str, str]:
        """The recorded site hooks' sha256, by path (for the oracle check)."""
        return site_hooks.digests(self.site_hooks)

    def site_changes(self) -> dict[str, str]:
        """Site hooks created, changed or deleted since `watch_site` (path -> how)."""
        return site_hooks.changes(self.site_digests, self.site_dirs)

    def tampered(self) -> list[str]:
        """Oracle files that differ from their captured copy (changed or deleted), files
        pytest loads by name that were created (see `codur.scope.support`), and site hooks
        of the project's Python created, changed or deleted (absolute paths)."""
        site = [f"{path} ({how})" for path, how in self.site_changes().items()]
        return self._tampered_files() + site

    def _tampered_files(self) -> list[str]:
        known = [*(self.present or ()), *self.oracle, *self.oracle_editable]
        changed = [f"{path} (created)" for path in created(self.root, known)]
        changed += [f"{path} (created)" for path in planted(self.root, self.compiled or {})]
        for path, data in self.oracle.items():
            target = self.root / path
            if not target.is_file():
                changed.append(f"{path} (deleted)")
            elif data is not None and target.read_bytes() != data:
                changed.append(f"{path} (changed)")
        return changed

    def restore_oracle(self) -> list[str]:
        """Put back oracle files that a program changed or deleted during the run (from
        the captured copies, atomically) and remove the configuration, plugin or site hook
        files it created (never one there at the start); returns what was restored or
        removed."""
        restored = self._restore_site()
        for entry in self._tampered_files():
            path, what = entry[:-1].rsplit(" (", 1)
            if what == "created":  # the folder as it was: without it
                (self.root / path).unlink(missing_ok=True)
                restored.append(path)
                continue
            data = self.oracle.get(path)
            if data is None:
                continue  # too large to have been captured: reported, not restored
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.codur-restore")
            tmp.write_bytes(data)
            os.replace(tmp, target)
            restored.append(path)
        return restored

    def _restore_site(self) -> list[str]:
        """Put back the site hooks in the workspace (a project's `.venv`) as they were:
        remove a created one, rewrite a changed or deleted one. One outside the workspace
        is left as it is (the oracle check reports it)."""
        restored = []
        top = self.root.resolve()
        for path, how in self.site_changes().items():
            target = Path(path)
            real = target.resolve()
            if top not in real.parents:
                continue
            if how == "created":
                target.unlink(missing_ok=True)
            else:
                tmp = target.with_name(f".{target.name}.codur-restore")
                tmp.write_bytes(self.site_hooks[path])
                os.replace(tmp, target)
            restored.append(real.relative_to(top).as_posix())
        return restored
