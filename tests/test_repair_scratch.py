"""The repair search's scratch copies: candidates are written there, so every file and
folder of a copy is the owner's to write, whatever its mode in the workspace."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from codur.repair.scratch import Scratch


def test_a_read_only_file_and_folder_are_writable_in_the_copy(tmp_path: Path) -> None:
    """A read-only main.py stopped the search with exit 4 ('the repair step failed 4
    times: PermissionError'): its copy was read-only too (a hostile probe)."""
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "main.py").write_text("print(1)\n")
    (root / "pkg" / "mod.py").write_text("X = 1\n")
    (root / "link.py").symlink_to("main.py")
    (root / "main.py").chmod(0o444)
    (root / "pkg" / "mod.py").chmod(0o444)
    (root / "pkg").chmod(0o555)
    root.chmod(0o555)
    try:
        with Scratch(root, 2, ()) as scratch:
            for copy in scratch.dirs:
                for path in (copy, copy / "pkg", copy / "main.py", copy / "pkg" / "mod.py"):
                    assert path.stat().st_mode & stat.S_IWUSR, path
                assert stat.S_IMODE((copy / "main.py").stat().st_mode) == 0o644
                assert (copy / "link.py").is_symlink()
                (copy / "main.py").write_text("print(2)\n")
    finally:
        root.chmod(0o755)
        (root / "pkg").chmod(0o755)
    assert (root / "main.py").read_text() == "print(1)\n"
    assert stat.S_IMODE((root / "main.py").stat().st_mode) == 0o444


def test_a_copy_is_given_back_as_it_was_made(tmp_path: Path) -> None:
    """A candidate's program that rewrites a file (a test refreshing its golden file),
    makes or deletes one, would otherwise judge the next candidate (a probe: the right
    fix failed against a golden file an earlier candidate had written)."""
    root = tmp_path / "work"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "golden.txt").write_text("6\n")
    (root / "main.py").write_text("print(6)\n")
    (root / "main.py").chmod(0o444)
    with Scratch(root, 1, []) as scratch:
        with scratch.lease() as copy:
            (copy / "tests" / "golden.txt").write_text("5\n")
            (copy / "main.py").unlink()
            (copy / "out").mkdir()
            (copy / "out" / "log.txt").write_text("x")
        with scratch.lease() as again:
            assert again == copy
            assert (copy / "tests" / "golden.txt").read_text() == "6\n"
            assert (copy / "main.py").read_text() == "print(6)\n"
            assert not (copy / "out").exists()
            (copy / "main.py").write_text("print(5)\n")  # a candidate writes over it
    assert (root / "main.py").read_text() == "print(6)\n"  # the workspace: never touched


def test_a_copy_is_put_back_when_a_file_became_a_folder_or_back(tmp_path: Path) -> None:
    """A reviewer's cases: each raised from the reset, and the copy was never given back."""
    root = tmp_path / "work"
    (root / "data").mkdir(parents=True)
    (root / "data" / "a.txt").write_text("a")
    (root / "empty").mkdir()
    (root / "out.txt").write_text("o")
    with Scratch(root, 1, []) as scratch:
        with scratch.lease() as copy:
            shutil.rmtree(copy / "data")
            (copy / "data").write_text("now a file")
            (copy / "out.txt").unlink()
            (copy / "out.txt").mkdir()
            (copy / "empty").rmdir()
        with scratch.lease() as again:
            assert (again / "data" / "a.txt").read_text() == "a"
            assert (again / "out.txt").read_text() == "o"
            assert (again / "empty").is_dir()


def test_a_copy_s_programs_import_its_own_source_root_first(tmp_path: Path) -> None:
    """`src/` on the copy's PYTHONPATH only when it is a source root: a `src/` package
    holding `email.py` would shadow the standard library (a reviewer's case)."""
    from codur.repair.scratch import in_copy
    from codur.tools.context import ToolContext
    from codur.workspace import Workspace

    (tmp_path / "src").mkdir()
    ctx = ToolContext(Workspace(tmp_path))
    path = in_copy(ctx, tmp_path).program_env["PYTHONPATH"].split(os.pathsep)
    assert path[:2] == [str(tmp_path / "src"), str(tmp_path)]
    (tmp_path / "src" / "__init__.py").write_text("")
    path = in_copy(ctx, tmp_path).program_env["PYTHONPATH"].split(os.pathsep)
    assert path[0] == str(tmp_path) and str(tmp_path / "src") not in path
