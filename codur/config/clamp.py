"""Limits an untrusted project file may tighten but not loosen: the `clamped` keys of
`codur.config.exposure.RULES`. Its value counts only if it is at most the value of the
layers below it (the built-in and the user config, else the schema's default; unset
there means no limit), or, for a list, a subset of it; otherwise it is ignored and named
in the untrusted file's one warning.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping
from typing import Any, get_args, get_origin

from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from codur.config.exposure import RULES
from codur.config.schema import CodurConfig

_CLAMPED = {key: rule.clamp for key, rule in RULES.items() if rule.clamp}


def strip_loosened(
    values: dict[str, Any], below: Mapping[str, Any], prefix: tuple[str, ...] = ()
) -> list[str]:
    """Remove, in place, the clamped settings of `values` that loosen `below`; one
    `key above LIMIT` (or `key beyond [..]`) each. A value the schema cannot read is
    left for it to reject."""
    removed = []
    for name in list(values):
        key = (*prefix, str(name))
        how = next((c for p, c in _CLAMPED.items() if _matches(key, p)), None)
        if how is None:
            if isinstance(values[name], dict):
                removed += strip_loosened(values[name], below, key)
            continue
        field = _field(key)
        limit = _below(below, key, field)
        try:
            value = TypeAdapter(field.annotation).validate_python(values[name])
        except ValidationError:
            continue  # the schema says what is wrong with it
        if how == "at most" and not _at_most(value, limit):
            removed.append(f"{'.'.join(key)} above {_shown(limit)}")
            del values[name]
        elif how == "subset" and not (limit is None or set(value) <= set(limit)):
            removed.append(f"{'.'.join(key)} beyond [{', '.join(map(str, limit))}]")
            del values[name]
    return removed


def _at_most(value: Any, limit: Any) -> bool:
    if limit is None:
        return True  # no limit below: any value is as tight or tighter
    return value is not None and not math.isnan(value) and value <= limit


def _shown(limit: Any) -> str:
    return f"{limit:g}" if isinstance(limit, float) else str(limit)


def _below(below: Mapping[str, Any], key: tuple[str, ...], field: FieldInfo) -> Any:
    """The value of `key` in the layers below (as the schema reads it), else the
    schema's default for it."""
    node: Any = below
    for part in key:
        if not isinstance(node, Mapping) or part not in node:
            return None if field.default is PydanticUndefined else field.default
        node = node[part]
    try:
        return TypeAdapter(field.annotation).validate_python(node)
    except ValidationError:  # the schema names the layer that holds it
        return None if field.default is PydanticUndefined else field.default


def _field(key: tuple[str, ...]) -> FieldInfo:
    """The schema's field at `key` (a clamped key names one: a test checks the rules)."""
    model: Any = CodurConfig
    field: FieldInfo | None = None
    for part in key:
        if get_origin(model) is dict:
            model = get_args(model)[1]  # a named entry: its name is this part
            continue
        field = model.model_fields[part]
        model = field.annotation
    assert field is not None
    return field


def _matches(key: tuple[str, ...], pattern: str) -> bool:
    parts = pattern.split(".")
    return len(key) == len(parts) and all(
        fnmatch.fnmatchcase(k, p) for k, p in zip(key, parts, strict=True)
    )
