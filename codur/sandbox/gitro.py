"""The workspace's `.git` kept read-only for the programs Codur runs (`sandbox.protect_git`).

A hook or a config written into `.git` runs later, unconfined, the next time git runs
there; a program under test or a model's shell command could also rewrite history. So
where programs are confined, the workspace's `.git` is mounted read-only for them, the
way a CLI agent's is (`codur.sandbox.readonly`). Subfolders' repositories are not (a
test suite may remove and remake a fixture repository). The git tools that record
(`git_stage_files`, `git_commit`) run without it, with the repository's git folders
writable wherever they are (a subfolder workspace's, a linked worktree's), pinned to the
repository found when the run began (`repository`): a `.git` a program makes later
(a file naming any folder as its git folder) is never theirs. Codur's own snapshots are
written by Codur, not by a confined program.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from codur.sandbox import Sandbox
from codur.sandbox.confine import keeping_read_only

GIT = ".git"


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
) -> tuple[Sandbox, str]:
    """`box` keeping `root`'s `.git` (and the paths `also`) read-only for its programs,
    and why it does not (empty when it does, or when there is nothing to keep or nothing
    is confined). `switch`: Landlock may give way to bubblewrap where it cannot keep a
    path read-only (not when the user named Landlock)."""
    found = git_path(root.resolve())
    keep = (*([found] if found is not None else []), *also)
    if box.confiner is None or not keep:
        return box, ""
    confiner, why = keeping_read_only(box.confiner, probe_timeout_s)
    if confiner is None or (confiner is not box.confiner and not switch):
        reason = why or "Landlock cannot keep a path read-only here (no mount namespace)"
        return box, reason
    read_only = tuple(dict.fromkeys((*box.read_only, *keep)))
    return replace(box, confiner=confiner, read_only=read_only), ""


@dataclass(frozen=True)
class Repository:
    """A git repository as found when a run began: its git folder, the folder shared by
    its worktrees (the same one, outside linked worktrees) and its top folder."""

    git_dir: Path
    common_dir: Path
    top: Path

    @property
    def env(self) -> dict[str, str]:
        """What pins git to this repository, whatever `.git` appears in the workspace."""
        return {"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.top)}

    @property
    def stores(self) -> list[Path]:
        """The folders git writes when it records (stage, commit)."""
        return list(dict.fromkeys((self.git_dir, self.common_dir)))


def repository(root: Path, timeout_s: float) -> Repository | None:
    """The repository `root` lies in (None: none, a bare one, git missing or too old)."""
    from codur.process import run_process
    from codur.sandbox import Sandbox

    binary = shutil.which("git")
    if binary is None:
        return None
    args = ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]
    run = run_process([binary, *args, "--show-toplevel"], root, timeout_s, 65536, sandbox=Sandbox())
    paths = [Path(line) for line in run.stdout.split("\n") if line]
    if run.exit_code != 0 or run.timed_out or len(paths) != 3:  # a newline in a path: 4+
        return None
    if not all(p.is_absolute() and p.is_dir() for p in paths):
        return None
    return Repository(*paths)
