"""Codur: a LangGraph coding agent that runs offline with an embedded model."""

__version__ = "0.1.0"
