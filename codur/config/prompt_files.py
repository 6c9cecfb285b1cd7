"""The `prompts` section (node -> prompt file): each layer's paths made absolute, relative
to the config file that names them (to the folder for CODUR_* and -o); an untrusted
project file may name files only inside the folder or the user's config folder; and,
once the layers are merged, every file read and checked against its node's placeholders
(`codur.promptbook`), so a bad prompt stops any command before it runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from codur.errors import ConfigError
from codur.promptbook.book import read
from codur.promptbook.template import PromptError

Key = tuple[str, ...]
SECTION = "prompts"


def resolve_paths(
    values: dict[str, Any],
    base: Path,
    where: Callable[[Key], str],
    inside: tuple[Path, ...] = (),
    hint: str = "",
) -> None:
    """Make the prompt paths of one layer's `values` absolute (in place). With `inside`,
    a path that resolves (links followed) outside those folders is a ConfigError naming
    it, followed by `hint`."""
    section = values.get(SECTION)
    if not isinstance(section, dict):
        return  # not a mapping: the schema says what is wrong
    for name, value in section.items():
        if not isinstance(value, str):
            continue
        path = Path(value).expanduser()
        path = Path(os.path.normpath(path if path.is_absolute() else base / path))
        real = path.resolve()
        if inside and not any(real.is_relative_to(root.resolve()) for root in inside):
            folders = " or ".join(str(root) for root in inside)
            raise ConfigError(
                f"{where((SECTION, str(name)))}: key '{SECTION}.{name}': {value} is outside "
                f"{folders}; an untrusted project file may name prompt files only there{hint}"
            )
        section[name] = str(path)


def check_files(prompts: Mapping[str, str], origin: Callable[[Key], str]) -> None:
    """Read every custom prompt and check it fits its node; PromptError (a ConfigError)
    naming where it was set, the node, the file and what does not fit."""
    for name, path in prompts.items():
        try:
            read(name, Path(path))
        except PromptError as exc:
            raise PromptError(f"{origin((SECTION, name))}: {exc}") from None
