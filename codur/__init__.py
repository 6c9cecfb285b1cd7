"""Codur: a LangGraph coding agent that runs offline with an embedded model.

`from codur import Agent` is the Python API (codur/api/, docs/api.md); it is imported
on first use, so `codur --help` stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Agent", "Result", "__version__", "run_agentic_task"]

if TYPE_CHECKING:
    from codur.api import Agent, Result, run_agentic_task


def __getattr__(name: str) -> Any:
    # by name: the package root sits below every layer
    if name in ("Agent", "Result", "run_agentic_task"):
        import importlib

        return getattr(importlib.import_module("codur.api"), name)
    raise AttributeError(f"module 'codur' has no attribute {name!r}")
