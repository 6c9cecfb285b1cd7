"""Locate the shipped `configs/` and `prompts/` folders, in a wheel or in a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """`configs` or `prompts`: inside the installed package, else at the checkout root."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"codur installation is missing its '{name}' folder")


def prompt(name: str) -> str:
    """The text of `prompts/<name>`."""
    return (data_dir("prompts") / name).read_text(encoding="utf-8")


def default_config_file() -> Path:
    """The built-in `configs/default.yaml`."""
    return data_dir("configs") / "default.yaml"
