"""Deciding a run's edit scope from its task, its folder and the user's `--allow-edit`."""

from __future__ import annotations

import errno
import os
from collections.abc import Collection
from pathlib import Path, PurePosixPath

from codur.errors import UsageError
from codur.scope.compiled import stamps
from codur.scope.oracle import capture, find_oracle, loaded_files, looks_like_oracle
from codur.scope.policy import EditScope
from codur.scope.request import asked_to_change, mentions
from codur.scope.test_modules import own_test_names, suite_files
from codur.task import file_mentions, file_refs


def decide_scope(
    task: str,
    root: Path,
    expected_name: str,
    ignore: set[str] | None = None,
    allow_edit: Collection[str] = (),
    test_command: Collection[str] = (),
) -> EditScope:
    """The scope of a run of `task` in `root`; `allow_edit`: the oracle files the user
    lets the run change (workspace-relative); `test_command`: the configured one (the
    files it names are oracle)."""
    present = loaded_files(root)  # before anything runs: none of these is created by the run
    compiled = stamps(root)
    refs = [r for r in file_refs(task) if _named(root / r) and (root / r).exists()]
    named = _expand(root, refs) or _bare_targets(task, root)
    oracle_paths = find_oracle(root, expected_name, ignore or set(), named, test_command)
    suite = suite_files(root, oracle_paths)
    unnamed = sorted(
        p for p in suite.modules | suite.cases if not looks_like_oracle(p, expected_name)
    )
    allowed = allowed_paths(root, allow_edit)
    new = [m for m in [*file_refs(task), *file_mentions(task)] if m not in oracle_paths]
    asked = [
        p
        for p in [*oracle_paths, *(m for m in new if looks_like_oracle(m, expected_name))]
        if asked_to_change(task, p)
    ]
    editable_oracle = tuple(dict.fromkeys([*asked, *allowed]))
    locked = tuple(p for p in oracle_paths if p not in editable_oracle and mentions(task, p))
    reasons = []
    targets = tuple(p for p in named if p not in oracle_paths or p in editable_oracle)
    if targets:
        reasons.append(f"the task names {', '.join(targets)}: other files are read-only")
    if asked:
        reasons.append(f"the task asks to change {', '.join(dict.fromkeys(asked))}")
    if allowed:
        reasons.append(f"allowed to change (--allow-edit): {', '.join(allowed)}")
    reasons += [
        f"the task names {p} but does not ask to change it: it is part of the check and "
        f"stays as it is (to let this run change it: --allow-edit {p})"
        for p in locked
    ]
    scope = EditScope(
        root=root,
        expected_name=expected_name,
        targets=targets,
        oracle=capture(root, [p for p in oracle_paths if p not in editable_oracle]),
        oracle_editable=editable_oracle,
        locked=locked,
        present=tuple(present),
        compiled=compiled,
        task=task,
        reasons=reasons,
        test_modules=tuple(unnamed),
        test_names=own_test_names(root),
    )
    return scope


def allowed_paths(root: Path, values: Collection[str]) -> list[str]:
    """The `--allow-edit` values as workspace-relative POSIX paths; UsageError for one
    outside the workspace."""
    found = []
    top = root.resolve()
    for value in values:
        path = Path(os.path.normpath(top / Path(value).expanduser()))
        if path != top and top not in path.parents:
            raise UsageError(f"--allow-edit {value}: not a file in {top}")
        if path == top:
            raise UsageError(f"--allow-edit {value}: names the folder itself, not a file")
        found.append(path.relative_to(top).as_posix())
    return list(dict.fromkeys(found))


def _expand(root: Path, refs: list[str]) -> list[str]:
    """@file references; a folder means every file under it."""
    files = []
    for ref in refs:
        path = root / ref
        if path.is_dir():  # every file: the user named the folder, ignored files and all
            files += sorted(p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file())
        else:
            files.append(PurePosixPath(ref).as_posix())
            if path.is_symlink() and (target := _inside(root, path)) is not None:
                files.append(target)  # edits land on the file it points to, in the folder
    return files


def _inside(root: Path, link: Path) -> str | None:
    """The folder-relative path a symbolic link resolves to; None when it leads out."""
    resolved = link.resolve()
    base = root.resolve()
    return resolved.relative_to(base).as_posix() if resolved.is_relative_to(base) else None


def _named(path: Path) -> bool:
    """Whether something is at `path`; a name longer than the system allows names nothing
    (the words of a task are not always file names)."""
    try:
        path.lstat()
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG):
            return False
        raise
    return True


def _bare_targets(task: str, root: Path) -> list[str]:
    """Existing files the task names without `@`, except as a command (`python main.py`)."""
    found = []
    for name in file_mentions(task):
        if not _named(root / name) or not (root / name).is_file():
            continue
        if any(f"{cmd} {name}" in task for cmd in ("python", "python3", "pytest", "run")):
            continue
        found.append(name)
    return found
