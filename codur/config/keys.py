"""Which dotted key paths name a setting, or a section of settings, of the schema."""

from __future__ import annotations

from typing import Any, get_args, get_origin

from codur.config.schema import CodurConfig

Key = tuple[str, ...]


_MISSING = object()


def _annotation(key: Key, model: Any = CodurConfig) -> Any:
    """The schema's type at `key` (_MISSING: no such setting or section); under a mapping
    of named entries (profiles, agents, MCP servers) any name is one."""
    from pydantic import BaseModel

    annotation: Any = model
    for part in key:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            field_info = annotation.model_fields.get(part)
            if field_info is None:
                return _MISSING
            annotation = field_info.annotation
        elif get_origin(annotation) is dict:
            annotation = get_args(annotation)[1]
        else:
            return _MISSING  # below a plain value
    return annotation


def is_key(key: Key, model: Any = CodurConfig) -> bool:
    """Whether `key` names a setting (or a section) of the schema."""
    return _annotation(key, model) is not _MISSING


def is_section(key: Key) -> bool:
    """Whether `key` names a section of settings (a mapping), not one setting."""
    from pydantic import BaseModel

    annotation = _annotation(key)
    model = isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return model or get_origin(annotation) is dict
