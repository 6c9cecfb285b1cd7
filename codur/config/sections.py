"""Config sections about safety and display, kept apart from the schema's core (same
rules: every field documented, unknown keys are errors). `CodurConfig` holds them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SandboxConfig(_Section):
    confine: Literal["auto", "landlock", "bubblewrap", "off"] = "auto"
    """Confine the writes of every program Codur runs to its folder (the workspace, or a
    scratch copy) and a private temporary folder: landlock (the kernel's Landlock, via
    the landlockpy package), bubblewrap (the `bwrap` program), auto (Landlock, else
    bubblewrap, else not confined: `-v` says why), or off. A way that is named but not
    available here stops the run (exit code 2)."""
    writable: list[str] = []
    """More folders confined programs may write to (absolute, `~` expanded), e.g. a
    cache a program needs."""
    env_allow: list[str] = []
    """Environment variables (names or globs) programs keep although they look like
    secrets. Otherwise removed: every profile's `api_key_env`, names containing KEY,
    TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL, SSH_AUTH_SOCK, and any variable whose
    value holds one of those secrets."""


class DisplayConfig(_Section):
    max_diff_lines: int = Field(500, gt=0)
    """The summary prints at most this many lines of the run's diff (then says how many
    more there were)."""
    max_reply_lines: int = Field(500, gt=0)
    """...and at most this many lines of the model's final reply."""
