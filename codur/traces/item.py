"""The trace's tree (`Item`) and the lenient readers of logged values: a value of any
type, from any Codur version, reads as text or as a number (or None), never raises."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Item:
    """One line of the trace and the lines under it. `kind`: run, node, group, model,
    tool, check, verification, verifier, todo, warning, resumed, span (a `*.start` /
    `*.end` pair) or event (any other record, shown generically)."""

    kind: str
    name: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    children: list[Item] = field(default_factory=list)
    start: float | None = None
    end: float | None = None

    def as_json(self) -> dict[str, Any]:
        """kind, name, the logged fields (but those three), children."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        out.update((k, v) for k, v in self.data.items() if k not in (*out, "children"))
        return {**out, "children": [c.as_json() for c in self.children]}


def text(value: Any) -> str:
    """Any logged value as text (a content list's text parts joined)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        parts = [v.get("text") for v in value]
        if all(isinstance(p, str) for p in parts):
            return "\n".join(parts)  # type: ignore[arg-type]
    return json.dumps(value, ensure_ascii=False, default=str)


def listed(value: Any) -> list[Any]:
    """A logged list, or [] for any other value."""
    return value if isinstance(value, list) else []


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def walk(item: Item, kind: str) -> Iterator[Item]:
    """Every item of `kind` under `item`, in order."""
    for child in item.children:
        if child.kind == kind:
            yield child
        yield from walk(child, kind)
