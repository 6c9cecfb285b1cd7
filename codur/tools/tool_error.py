"""The error a tool raises when it cannot do what was asked."""

from __future__ import annotations

from codur.errors import CodurError


class ToolError(CodurError):
    """A tool could not do what was asked; the message goes back to the model."""
