"""The tests a pytest run passed, as Codur's own plugin records them
(`codur/tools/passes_plugin.py`, loaded into the project's run from a folder outside the
workspace): each with the files it is written in and the classes its class inherits
from, so a mixin's test, a test of a base class and a test under a decorator from
another module are found where they are written. A file, not the run's output: a suite
of thousands of tests lists its passes without flooding the output the run keeps."""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

PLUGIN = "codur_passes"
"""The plugin's module name, before a token of each run's own: pytest imports `-p NAME`
by `sys.path`, where `python -m pytest` puts the working folder first, so a module of a
fixed name there (`codur_passes.py`, written by the code under test) would load instead
of Codur's and could pass every test."""
SOURCE = Path(__file__).with_name("passes_plugin.py")


def prepare(folder: Path, inherited: str) -> tuple[list[str], dict[str, str]]:
    """pytest's flags and the environment that load the plugin from `folder` (its
    records go to `folder/out`); `inherited`: the `PYTHONPATH` the run has otherwise."""
    name = f"{PLUGIN}_{secrets.token_hex(8)}"
    shutil.copyfile(SOURCE, folder / f"{name}.py")
    (folder / "out").mkdir()
    path = os.pathsep.join([str(folder), *([inherited] if inherited else [])])
    return ["-p", name], {"PYTHONPATH": path, "CODUR_PASSES": str(folder / "out")}


def passed(folder: Path) -> list[dict] | None:
    """The plugin's records (`files`, `name`, `classes` of each test that passed); None
    when it wrote none (it did not load, or the run was stopped)."""
    found: list[dict] = []
    files = sorted((folder / "out").glob("*.jsonl")) if (folder / "out").is_dir() else []
    for file in files:
        for line in file.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("name"), str):
                found.append(row)
    return found if files else None
