"""A challenge folder and its `challenge.yaml`, typed."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from codur.errors import ConfigError

HIDDEN = ("solution", "challenge.yaml")
"""Never shown to the agent: the reference fix and the challenge's own metadata."""


class ChallengeSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    entry: list[str]
    """Command that runs the program (`python` means the running interpreter)."""
    expected: str | None = None
    """File with the exact expected stdout; unset: success is exit code 0 (e.g. pytest)."""
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

    def command(self) -> list[str]:
        return [sys.executable if part == "python" else part for part in self.spec.entry]

    def copy_to(self, dest: Path, with_solution: bool = False) -> Path:
        """A working copy as the agent sees it (or with the reference fix applied)."""
        work = dest / self.name
        shutil.copytree(self.folder, work, ignore=shutil.ignore_patterns(*HIDDEN))
        if with_solution:
            shutil.copytree(self.folder / "solution", work, dirs_exist_ok=True)
        return work


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
            found += [load(p) for p in sorted(path.iterdir()) if (p / "challenge.yaml").is_file()]
        else:
            raise ConfigError(f"{path}: not a challenge folder")
    return found
