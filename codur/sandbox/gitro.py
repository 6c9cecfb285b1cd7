"""The workspace's `.git` kept read-only for the programs Codur runs (`sandbox.protect_git`).

A hook or a config written into `.git` runs later, unconfined, the next time git runs
there; a program under test or a model's shell command could also rewrite history. So
where programs are confined, the workspace's `.git` is mounted read-only for them, the
way a CLI agent's is (`codur.sandbox.readonly`). Subfolders' repositories are not (a
test suite may remove and remake a fixture repository). The git tools that record
(`git_stage_files`, `git_commit`) run without it, with the repository's git folders
writable wherever they are (a subfolder workspace's, a linked worktree's), pinned to the
repository found when the run began (`codur.sandbox.repository`): a `.git` a program
makes later (a file naming any folder as its git folder) is never theirs. Codur's own
snapshots are written by Codur, not by a confined program.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path

from codur.sandbox import Sandbox
from codur.sandbox.confine import keeping_read_only
from codur.sandbox.repository import GIT


def git_path(root: Path) -> Path | None:
    """`root/.git` (a folder, or a worktree's file) if it exists and is no symbolic link
    (one leading out of the workspace is outside what confined programs may write)."""
    path = root / GIT
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return None if stat.S_ISLNK(info.st_mode) else path


def protect_git(
    box: Sandbox,
    root: Path,
    probe_timeout_s: float,
    switch: bool = True,
    also: tuple[Path, ...] = (),
    git: bool = True,
) -> tuple[Sandbox, str]:
    """`box` keeping `root`'s `.git` (`git`) and the paths `also` read-only for its
    programs, and why it does not (empty when it does, or when there is nothing to keep
    or nothing is confined). `switch`: Landlock may give way to bubblewrap where it
    cannot keep a path read-only (not when the user named Landlock)."""
    found = git_path(root.resolve()) if git else None
    keep = (*([found] if found is not None else []), *also)
    if box.confiner is None or not keep:
        return box, ""
    confiner, why = keeping_read_only(box.confiner, probe_timeout_s)
    if confiner is None or (confiner is not box.confiner and not switch):
        reason = why or "Landlock cannot keep a path read-only here (no mount namespace)"
        return box, reason
    read_only = tuple(dict.fromkeys((*box.read_only, *keep)))
    return replace(box, confiner=confiner, read_only=read_only), ""
