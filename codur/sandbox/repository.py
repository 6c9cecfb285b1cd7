"""The git repository a workspace lies in, as git's own records vouch for it.

A confined program may write a `.git` into a workspace that had none (or into a
subfolder of a repository): a folder, or a file naming any folder on the machine as its
git folder, with a config whose filters run programs. What writes a repository (the git
tools that record, Codur's snapshots) therefore takes only a layout nothing in the
workspace can forge: an ordinary repository's git folder is `.git` in its top folder; a
linked worktree's lies outside the worktree, in the main repository, and names the
worktree's `.git` as its own (its `gitdir` file).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

GIT = ".git"


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

    def vouched(self) -> bool:
        """Whether git's own records vouch for this layout (the module's docstring)."""
        own = self.top / GIT
        if self.git_dir == self.common_dir:
            return own.is_dir() and not own.is_symlink() and own.resolve() == self.git_dir
        if self.top == self.git_dir or self.top in self.git_dir.parents:
            return False  # a worktree's records inside the worktree: anyone there wrote them
        try:
            back = Path((self.git_dir / "gitdir").read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError):
            return False
        return own.is_file() and back.resolve() == own.resolve()


def repository(root: Path, timeout_s: float) -> Repository | None:
    """The repository `root` lies in, if git's records vouch for it (None: none, a bare
    one, one they do not vouch for, git missing or too old)."""
    from codur.process import run_process
    from codur.sandbox import Sandbox

    binary = shutil.which("git")
    if binary is None:
        return None
    args = ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]
    run = run_process([binary, *args, "--show-toplevel"], root, timeout_s, 65536, sandbox=Sandbox())
    lines = [line for line in run.stdout.split("\n") if line]
    if run.exit_code != 0 or run.timed_out or len(lines) != 3:  # a newline in a path: 4+
        return None
    paths = [Path(line).resolve() for line in lines]
    if not all(p.is_dir() for p in paths):
        return None
    found = Repository(*paths)
    return found if found.vouched() else None
