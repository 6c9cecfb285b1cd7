"""The workspace's `.git` kept read-only for the programs Codur runs (`sandbox.protect_git`).

A hook or a config written into `.git` runs later, unconfined, the next time git runs
there; a program under test or a model's shell command could also rewrite history. So
where programs are confined, `.git` (the workspace's and its immediate subfolders') is
mounted read-only for them, the way a CLI agent's is (`codur.sandbox.readonly`). The git
tools that record (`git_stage_files`, `git_commit`) run without it; Codur's own
snapshots are written by Codur, not by a confined program.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from codur.sandbox import Sandbox
from codur.sandbox.confine import keeping_read_only

GIT = ".git"


def git_paths(root: Path) -> list[Path]:
    """`root/.git` and `root/*/.git` (folders or files) that exist."""
    try:
        children = [c for c in root.iterdir() if c.name != GIT and c.is_dir()]
    except OSError:
        children = []
    return [p for p in [root / GIT, *(c / GIT for c in children)] if p.exists()]


def protect_git(box: Sandbox, root: Path, probe_timeout_s: float) -> tuple[Sandbox, str]:
    """`box` keeping `root`'s `.git` read-only for its programs, and why it does not
    (empty when it does, or when there is nothing to keep or nothing is confined)."""
    found = git_paths(root.resolve())
    if box.confiner is None or not found:
        return box, ""
    if links := [p for p in found if p.is_symlink()]:
        return box, f"{links[0]} is a symbolic link, which cannot be kept read-only"
    confiner, why = keeping_read_only(box.confiner, probe_timeout_s)
    if confiner is None:
        return box, why
    read_only = tuple(dict.fromkeys((*box.read_only, *found)))
    return replace(box, confiner=confiner, read_only=read_only), ""
