"""Codur: a LangGraph coding agent that runs offline with an embedded model.

`from codur import Agent` is the Python API (codur/api.py, docs/api.md); it is imported
on first use, so `codur --help` stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Agent", "Result", "__version__"]

if TYPE_CHECKING:
    from codur.api import Agent, Result


def __getattr__(name: str) -> Any:
    if name in ("Agent", "Result"):  # by name: the package root sits below every layer
        import importlib

        return getattr(importlib.import_module("codur.api"), name)
    raise AttributeError(f"module 'codur' has no attribute {name!r}")
