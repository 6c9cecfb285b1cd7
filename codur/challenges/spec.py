"""A challenge folder and its `challenge.yaml`, typed."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from codur.errors import ConfigError

HIDDEN = ("solution", "judge", "challenge.yaml")
"""Never shown to the agent (top-level names of a challenge folder): the reference fix, the
judge's own files (e.g. an expected output the prompt states only in words) and the
challenge's metadata."""


class ChallengeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    entry: list[str]
    """Command the judge runs in the working copy (`python` means the running interpreter),
    after copying the hidden `judge/` folder in: the program itself, or a check under
    `judge/` that the agent cannot weaken (e.g. `[python, -m, judge.check]`)."""
    expected: str | None = None
    """File with the exact expected stdout (may be under the hidden `judge/` folder); unset:
    success is exit code 0 (e.g. pytest). The judge always reads the challenge's own file,
    never the working copy's."""
    editable: list[str] | None = None
    """Globs (relative to the working copy, `**` for any folders) of the files the agent may
    change; a run that modifies, deletes or creates any other file fails. Unset: the files
    the prompt names with `@path` (a folder: everything under it) that are not part of the
    oracle (the expected-output file, pytest's test files `test_*.py` and `*_test.py`,
    `conftest.py`, everything under `judge/`); when it names no such file, every file but
    the oracle."""
    timeout_s: float = Field(10.0, gt=0)
    """Seconds the entry command may run."""
    tags: list[str] = []
    """Bug kind and difficulty, for reports."""


class Challenge(BaseModel):
    name: str
    folder: Path
    spec: ChallengeSpec

    @property
    def prompt(self) -> str:
        return (self.folder / "prompt.txt").read_text(encoding="utf-8").strip()

    def command(self, python: str) -> list[str]:
        """The entry command, `python` (the project's interpreter) for its word `python`."""
        return [python if part == "python" else part for part in self.spec.entry]

    def copy_to(self, dest: Path, with_solution: bool = False) -> Path:
        """A working copy as the agent sees it (or with the reference fix applied)."""
        work = dest / self.name
        shutil.copytree(self.folder, work, ignore=self._hidden)
        if with_solution:
            shutil.copytree(self.folder / "solution", work, dirs_exist_ok=True)
        return work

    def _hidden(self, folder: str, names: list[str]) -> list[str]:
        """`copytree`'s ignore: the HIDDEN names at the challenge folder's top level only."""
        top = Path(folder).resolve() == self.folder.resolve()
        return [name for name in names if name in HIDDEN] if top else []

    def add_judge(self, work: Path) -> None:
        """Copy the hidden `judge/` folder (if any) into `work`, for judging only."""
        if (self.folder / "judge").is_dir():
            shutil.copytree(self.folder / "judge", work / "judge", dirs_exist_ok=True)


def load(folder: Path) -> Challenge:
    path = folder / "challenge.yaml"
    try:
        spec = ChallengeSpec.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{path}: key '{'.'.join(map(str, err['loc']))}': {err['msg']}") from None
    if not (folder / "prompt.txt").is_file():
        raise ConfigError(f"{folder}: missing prompt.txt")
    return Challenge(name=folder.name, folder=folder, spec=spec)


def discover(paths: list[Path]) -> list[Challenge]:
    """Challenges in `paths`: each a challenge folder or a folder of them."""
    found = []
    for path in paths:
        if (path / "challenge.yaml").is_file():
            found.append(load(path))
        elif path.is_dir():
            inside = [load(p) for p in sorted(path.iterdir()) if (p / "challenge.yaml").is_file()]
            if not inside:
                raise ConfigError(f"{path}: no challenge folder in it (none has challenge.yaml)")
            found += inside
        else:
            raise ConfigError(f"{path}: not a challenge folder")
    return found
