"""The git repository a workspace lies in, as git's own records vouch for it.

A confined program may write a `.git` into a workspace that had none (or into a
subfolder of a repository): a folder, or a file naming any folder on the machine as its
git folder, with a config whose filters run programs. What writes a repository (the git
tools that record, Codur's snapshots) therefore takes only a layout nothing in the
workspace can forge: an ordinary repository's git folder is `.git` in its top folder; a
linked worktree's lies outside the worktree, in `worktrees/` of the main repository's
`.git` (or of a bare repository), and names the worktree's `.git` as its own (its
`gitdir` file); a submodule's lies in `modules/` of its superproject's `.git` and names
the checkout as its work tree (`core.worktree`).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codur.sandbox.confine import SHARED_MEMORY

GIT = ".git"
SHARED = Path(SHARED_MEMORY)
"""Writable by every confined program: no git folder found there is trusted."""


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

    def vouched(self, timeout_s: float) -> bool:
        """Whether git's own records vouch for this layout (the module's docstring)."""
        if any(p == SHARED or SHARED in p.parents for p in (self.git_dir, self.common_dir)):
            return False  # every confined program may write there
        if self.git_dir == self.common_dir:
            own = _own_git_folder(self.top) == self.git_dir
            return own or self._submodule(timeout_s)
        main = self.common_dir.parent
        if _own_git_folder(main) != self.common_dir and not self._bare(timeout_s):
            return False  # a worktree of anything but an ordinary or a bare repository
        if self.git_dir.parent != self.common_dir / "worktrees" or self.top in main.parents:
            return False
        try:
            back = Path((self.git_dir / "gitdir").read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError):
            return False
        own = self.top / GIT
        return own.is_file() and not own.is_symlink() and back.resolve() == own.resolve()

    def _bare(self, timeout_s: float) -> bool:
        """The common folder is a bare repository outside the worktree (`git clone
        --bare` and worktrees added to it, as in the `.bare` layout)."""
        if self.top == self.common_dir or self.top in self.common_dir.parents:
            return False
        return _config(self.common_dir / "config", "core.bare", timeout_s) == "true"

    def _submodule(self, timeout_s: float) -> bool:
        """A submodule's checkout: its git folder lies in `modules/` of an ordinary
        repository's `.git`, and its config's `core.worktree` names this checkout."""
        own = self.top / GIT
        if not own.is_file() or own.is_symlink():
            return False
        holder = next((p for p in self.git_dir.parents if p.name == GIT), None)
        if holder is None or _own_git_folder(holder.parent) != holder:
            return False
        if holder / "modules" not in self.git_dir.parents:
            return False
        worktree = _config(self.git_dir / "config", "core.worktree", timeout_s)
        return worktree is not None and (self.git_dir / worktree).resolve() == self.top


def _config(path: Path, key: str, timeout_s: float) -> str | None:
    """`key` in the git config file `path` (None: not set, or no such file)."""
    binary = shutil.which("git")
    if binary is None or not path.is_file():
        return None
    run = _git([binary, "config", "--file", str(path), "--get", key], path.parent, timeout_s)
    value = run[1].rstrip("\n") if run else ""
    return value if run and run[0] == 0 and value and "\n" not in value else None


def _git(command: list[str], cwd: Path, timeout_s: float) -> tuple[int, str] | None:
    """Exit code and output of a git command that runs nothing of the repository's
    (rev-parse, config --get); None when it could not run in time."""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.returncode, done.stdout.decode("utf-8", "surrogateescape")


def _own_git_folder(top: Path) -> Path | None:
    """`top/.git` when it is a folder (not a link to one), resolved; else None."""
    own = top / GIT
    return own.resolve() if own.is_dir() and not own.is_symlink() else None


def repository(root: Path, timeout_s: float) -> Repository | None:
    """The repository `root` lies in, if git's records vouch for it (None: none, a bare
    one, one they do not vouch for, git missing or too old)."""
    return lookup(root, timeout_s)[0]


def lookup(root: Path, timeout_s: float) -> tuple[Repository | None, str]:
    """`repository(root)`, and why a repository git found there is not used (empty when
    it is, or when there is none)."""
    binary = shutil.which("git")
    if binary is None:
        return None, ""
    args = ["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"]
    run = _git([binary, *args, "--show-toplevel"], root, timeout_s)
    lines = [line for line in run[1].split("\n") if line] if run else []
    if run is None or run[0] != 0 or len(lines) < 3:
        return None, ""
    paths = [Path(line).resolve() for line in lines]
    found = Repository(*paths) if len(paths) == 3 else None
    inside = found is not None and (
        found.top == root.resolve() or found.top in root.resolve().parents
    )
    if inside and all(p.is_dir() for p in paths) and found.vouched(timeout_s):
        return found, ""
    return None, (
        f"the git repository at {lines[-1]} is not used: git's own records do not vouch for "
        "its layout (a .git naming a folder elsewhere, a separate git folder, a .git that "
        "is a link); snapshots copy the files and the git tools record nothing"
    )
