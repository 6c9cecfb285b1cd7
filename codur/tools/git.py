"""Git tools: the real `git`, run in the workspace with the configured timeout.

git_commit is destructive (it records history) and needs confirmation.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath

from codur.sandbox.repository import GIT, repository
from codur.tools.context import Ctx, ToolContext, ToolError
from codur.tools.registry import TaskType, register_tool


def git(ctx: ToolContext, *args: str, record: bool = False) -> str:
    """Run `git ARGS` in the workspace; its stdout, or ToolError with git's message.
    `record`: it writes the repository (stage, commit), which other programs may not:
    `.git`, or where a linked worktree's or a subfolder's repository lives, outside the
    workspace: only into a repository git's records vouch for, the one found as the run
    began (`Sandbox.repository`) if any. Its hooks run only with `tools.git_hooks`."""
    binary = shutil.which("git")
    if binary is None:
        raise ToolError("git is not installed")
    hooks = [] if ctx.config.git_hooks else ["-c", f"core.hooksPath={os.devnull}"]
    command = [binary, "-c", "core.quotepath=off", "-c", "color.ui=never", *hooks, *args]
    repo = ctx.sandbox.repository or repository(ctx.ws.root, ctx.config.git_timeout_s)
    if record and repo is None:
        raise ToolError(
            "no git repository here that git's own records vouch for (none, or a .git "
            "naming a folder elsewhere: a separate git folder, one a program made), so "
            "the git tools record nothing"
        )
    env = {**(repo.env if repo else {}), "GIT_LITERAL_PATHSPECS": "1"}  # no `:/x`, `:(top)x`
    stores = repo.stores if repo and record else []
    run = ctx.run(command, ctx.config.git_timeout_s, env=env, writable=stores, git_writable=record)
    if run.timed_out:
        raise ToolError(f"git {args[0]} stopped after {ctx.config.git_timeout_s:g} s")
    if run.exit_code != 0 and not run.truncated:
        message = (run.stderr or run.stdout).strip()
        raise ToolError(message[:1000] or f"git {args[0]} exited with code {run.exit_code}")
    return run.stdout + ("\n[output cut]" if run.truncated else "")


def _paths(ctx: ToolContext, paths: list[str]) -> list[str]:
    """Workspace-relative forms of `paths`, each checked like any other tool path."""
    return [ctx.rel(ctx.path(p)) for p in paths]


def _with_git(ctx: ToolContext, rel: str) -> list[str]:
    """Folders holding a `.git` entry, below the workspace, that hold `rel`, are `rel`,
    or lie under it (links not followed; a folder with one is not searched further)."""
    parts = PurePosixPath(rel).parts
    found = [PurePosixPath(*parts[:n]).as_posix() for n in range(1, len(parts))]
    found = [folder for folder in found if os.path.lexists(ctx.ws.root / folder / GIT)]
    # not walk(): it skips `.git`, the very entry looked for here
    for folder, subfolders, names in os.walk(ctx.ws.root / rel):
        inner = ctx.rel(Path(folder))
        if inner != "." and GIT in subfolders + names:
            found.append(inner)
            subfolders.clear()
        subfolders[:] = [name for name in subfolders if name != GIT]
    return found


def _nested(ctx: ToolContext, rels: list[str]) -> tuple[str, str] | None:
    """A path of `rels` and the folder it is in or holds that git takes for a repository
    of its own (untracked, with a real `.git`): `git add` would skip the files in it,
    or record only a link to its commit. None: no such folder."""
    folders = list(dict.fromkeys(f for rel in rels for f in _with_git(ctx, rel)))
    if not folders:
        return None
    listed = git(ctx, "ls-files", "-z", "--others", "--exclude-standard", "--", *folders)
    if listed.endswith("[output cut]"):
        raise ToolError(
            f"too many untracked files in {', '.join(folders)} to check; nothing staged"
        )
    repos = [entry.rstrip("/") for entry in listed.split("\0") if entry.endswith("/")]
    for rel in rels:
        for repo in repos:
            if rel == repo or PurePosixPath(repo) in PurePosixPath(rel).parents:
                return rel, repo
            if rel == "." or PurePosixPath(rel) in PurePosixPath(repo).parents:
                return repo, repo
    return None


@register_tool(TaskType.GIT)
def git_status(ctx: Ctx) -> str:
    """Show the branch and the changed, staged and untracked files (git status --short)."""
    return git(ctx, "status", "--short", "--branch", "--", ".").rstrip() or "(clean)"


@register_tool(TaskType.GIT)
def git_diff(ctx: Ctx, path: str | None = None, staged: bool = False) -> str:
    """Show uncommitted changes as a unified diff.

    Args:
        path: Only this file or folder.
        staged: Show what is staged for the next commit instead of unstaged changes.
    """
    args = ["diff", "--no-ext-diff", *(["--cached"] if staged else [])]
    out = git(ctx, *args, "--", *_paths(ctx, [path or "."]))
    return out or "(no changes)"


@register_tool(TaskType.GIT)
def git_log(ctx: Ctx, max_count: int = 10, path: str | None = None) -> str:
    """Show recent commits: short hash, date, author and subject.

    Args:
        max_count: How many commits to show.
        path: Only commits touching this file or folder.
    """
    if max_count < 1:
        raise ToolError("max_count must be at least 1")
    fmt = "--format=%h %ad %an: %s"
    out = git(ctx, "log", f"--max-count={max_count}", "--date=short", fmt, "--",
              *_paths(ctx, [path] if path else []))  # fmt: skip
    return out.rstrip() or "(no commits)"


@register_tool(TaskType.GIT)
def git_stage_files(ctx: Ctx, paths: list[str]) -> str:
    """Stage files for the next commit (git add).

    Args:
        paths: Files or folders to stage, relative to the workspace root.
    """
    if not paths:
        raise ToolError("give at least one path to stage")
    rels = _paths(ctx, paths)
    if (held := _nested(ctx, rels)) is not None:
        rel, inner = held
        raise ToolError(
            f"cannot stage {rel}: {inner} is a git repository of its own (git would skip "
            "the files in it, or record only a link to its commit); nothing staged"
        )
    git(ctx, "add", "--", *rels, record=True)
    return f"Staged: {', '.join(rels)}"


@register_tool(TaskType.GIT)
def git_commit(ctx: Ctx, message: str) -> str:
    """Commit the staged changes (needs confirmation).

    Args:
        message: The commit message.
    """
    if not message.strip():
        raise ToolError("the commit message is empty")
    staged = git(ctx, "diff", "--cached", "--name-only").split()
    if not staged:
        raise ToolError("nothing is staged; stage files with git_stage_files first")
    ctx.approve(f"commit {len(staged)} staged file(s) with message {message.strip()[:80]!r}")
    git(ctx, "commit", "--quiet", "-m", message, record=True)
    return f"Committed: {git(ctx, 'log', '-1', '--format=%h %s').strip()}"
