"""The import contracts in pyproject.toml ([tool.importlinter]): the layering and no
cycles, checked by import-linter's `lint-imports` in a real process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

LINT = "from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", LINT, "--no-cache", "--no-logo"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_import_contracts_hold() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken." in done.stdout


def test_an_upward_import_or_a_cycle_breaks_them(tmp_path: Path) -> None:
    """The contracts can fail: a tool importing the graph goes up the layers and closes
    a cycle (graph -> tools -> graph)."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(
        ROOT / "codur", tmp_path / "codur", ignore=shutil.ignore_patterns("__pycache__")
    )
    (tmp_path / "codur" / "tools" / "upward.py").write_text("import codur.graph.build\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "Contracts: 0 kept, 2 broken." in done.stdout
    assert "codur.tools.upward -> codur.graph.build" in done.stdout
