"""How the git store runs git (confined like the run's programs, bounded in time, with
Codur's settings and identity) and seeds a private index from the user's."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import replace
from pathlib import Path

from codur.sandbox import Sandbox
from codur.sandbox.env import scrubbed
from codur.sandbox.private import hide_codur, without_inspection
from codur.sandbox.reaper import kill_tree
from codur.undo.store import SnapshotError
from codur.workspace import open_regular

IDENTITY = {
    "GIT_AUTHOR_NAME": "Codur",
    "GIT_AUTHOR_EMAIL": "codur@localhost",
    "GIT_COMMITTER_NAME": "Codur",
    "GIT_COMMITTER_EMAIL": "codur@localhost",
}
"""Who Codur's snapshot commits are by."""
SETTINGS = (
    "core.fileMode=true",  # record the executable bit even where the repo ignores it
    "core.hooksPath=/dev/null",  # no user hook runs for Codur's private commits and refs
    "core.fsmonitor=false",  # nor a file-system monitor program
    "commit.gpgSign=false",  # nor a signing program
    "advice.addEmbeddedRepo=false",
    "gc.auto=0",
    "maintenance.auto=false",
)
"""What every git command of the store runs with (`-c`): no hook, monitor or signing
program of the repository's, no automatic maintenance."""


def run_git(
    command: list[str],
    cwd: Path,
    timeout_s: float,
    label: str,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    box: Sandbox | None = None,
    writable: tuple[Path, ...] = (),
) -> subprocess.CompletedProcess[bytes]:
    """Run git with `env` set on top of Codur's scrubbed environment, confined by `box` if
    it confines (writing `cwd` and `writable` only; the run's read-only `.git` is git's)."""
    try:
        if box is None or box.confiner is None:  # git's filters are programs too
            hide_codur()
            base, _ = scrubbed(os.environ, box.key_names if box is not None else ())
            return subprocess.run(
                command, cwd=cwd, env={**base, **(env or {})}, input=stdin,
                capture_output=True, timeout=timeout_s, preexec_fn=without_inspection(),
            )  # fmt: skip
        with replace(box, read_only=()).launch(command, cwd, env or {}, writable) as launch:
            pipe = subprocess.PIPE  # not REAPER's: the end snapshot runs as Codur stops
            proc = subprocess.Popen(
                launch.argv, cwd=cwd, **launch.popen,
                stdin=pipe if stdin is not None else subprocess.DEVNULL, stdout=pipe,
                stderr=pipe, start_new_session=True,
            )  # fmt: skip
            try:
                launch.started()
                out, err = proc.communicate(stdin, timeout=timeout_s)
            finally:  # a filter's descendants end with it
                kill_tree(proc.pid, launch.tag)
                proc.wait()
            return subprocess.CompletedProcess(command, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        raise SnapshotError(f"git {label} took longer than {timeout_s:g} s") from None
    except OSError as exc:
        raise SnapshotError(f"cannot run git: {exc.strerror or exc}") from None


def worth_copying(index: Path, cap_bytes: int) -> bool:
    """Whether the user's index is a regular file worth copying: not over the snapshot
    size cap nor sparse (a program could leave a 1 GB one taking no disk, which every
    copy would fill); without it git builds the private index afresh."""
    try:
        info = index.lstat()
    except OSError:
        return False
    dense = info.st_blocks * 512 >= info.st_size // 2
    return stat.S_ISREG(info.st_mode) and info.st_size <= cap_bytes and dense


def copy_new(source: Path, target: Path) -> None:
    """Copy the regular file `source` to a new file `target`, never through a link left at
    that name (SnapshotError when either cannot be)."""
    try:
        data = open_regular(source)
    except OSError as exc:
        raise SnapshotError(f"cannot read the index {source}: {exc.strerror}") from None
    with data:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise SnapshotError(f"cannot make the private index {target}: {exc.strerror}") from None
        with os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(data, out)
