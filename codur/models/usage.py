"""What model calls cost: `Usage`, the run's live meter (every model client of the run
counts into it, and the call budget is checked against it), and `Spent`, what one step
of the run graph spent, the record the graph's state keeps (`codur.graph.learned`).

The state holds a step's records by a key of their own and merges them by key
(`add_spent`), so a graph run inside a node, whose result carries the records it was
given, counts them once; the run's spend is their sum (`total`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

_COUNTS = ("calls", "prompt_tokens", "completion_tokens", "cached_prompt_tokens")


@dataclass(frozen=True)
class Spent:
    """Model calls and tokens spent (by one step of a run, or by the run)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    """Of `prompt_tokens`, those the provider did not evaluate again (a cached prefix)."""
    by_profile: dict[str, int] = field(default_factory=dict)
    """Calls per profile (a resumed run's scripted model goes on from its count)."""

    def __add__(self, other: Spent) -> Spent:
        return _combine(self, other, 1)

    def __sub__(self, other: Spent) -> Spent:
        return _combine(self, other, -1)

    def __bool__(self) -> bool:
        return any(getattr(self, name) for name in _COUNTS) or bool(self.by_profile)


def _combine(a: Spent, b: Spent, sign: int) -> Spent:
    counts = {name: getattr(a, name) + sign * getattr(b, name) for name in _COUNTS}
    names = [*a.by_profile, *(p for p in b.by_profile if p not in a.by_profile)]
    calls = {p: a.by_profile.get(p, 0) + sign * b.by_profile.get(p, 0) for p in names}
    return Spent(**counts, by_profile={p: n for p, n in calls.items() if n})


def total(records: Mapping[str, Spent] | None) -> Spent:
    """What the steps of `records` spent together."""
    return sum((records or {}).values(), Spent())


def add_spent(left: Mapping[str, Spent], right: Mapping[str, Spent]) -> dict[str, Spent]:
    """The state's reducer of spend records: merged by key, so the same record given back
    (by a graph run inside a node) counts once."""
    return {**left, **right}


@dataclass
class Usage:
    """The run's live meter: model calls and tokens this process's clients spent, plus what
    the run had spent before it (a resumed run: `go_on_from`)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    """Of `prompt_tokens`, those the provider did not evaluate again (a cached prefix)."""
    max_calls: int | None = None
    """runtime.max_llm_calls: no call starts once `calls` reaches it (None: no limit)."""
    by_profile: dict[str, int] = field(default_factory=dict)
    """Calls per profile (a resumed run's scripted model goes on from its count)."""

    def spent(self) -> Spent:
        """The meter as it stands, as a record."""
        counts = {name: getattr(self, name) for name in _COUNTS}
        return Spent(**counts, by_profile=dict(self.by_profile))

    def go_on_from(self, earlier: Spent) -> None:
        """Count `earlier` (what the run spent before this process) as spent."""
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(earlier, name))
        for profile, calls in earlier.by_profile.items():
            self.by_profile[profile] = self.by_profile.get(profile, 0) + calls
