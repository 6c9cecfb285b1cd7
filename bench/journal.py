"""What the benchmarks share: a journal of finished runs that a rerun resumes from, and an
order that gives every kind of item its share of a prefix."""

from __future__ import annotations

import json
import random
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class Journal:
    """OUT/runs.jsonl: one line a finished run, appended as runs end (from any thread).
    `key`: the fields that name a run (a rerun skips the runs already in `done`)."""

    def __init__(self, path: Path, key: tuple[str, ...]) -> None:
        self.path = path
        self.key = key
        self.lock = threading.Lock()
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        self.records = [json.loads(line) for line in lines if line.strip()]

    @property
    def done(self) -> set[tuple]:
        return {self.name(r) for r in self.records}

    def name(self, record: dict) -> tuple:
        return tuple(record[field] for field in self.key)

    def add(self, record: dict) -> None:
        with self.lock:
            self.records.append(record)
            with self.path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
        mark = "pass" if record["passed"] else "FAIL"
        status = f" [{record['status']}]" if record.get("status") else ""
        ident = record[self.key[0]]
        print(
            f"{record['mode']:<6} s{record['seed']} {ident:<18} {mark}{status} "
            f"{record['wall_s']:7.1f}s {'' if record['passed'] else record.get('reason', '')}",
            flush=True,
        )


def in_turn(items: Iterable[T], kind: Callable[[T], str], rng: random.Random) -> list[T]:
    """Shuffled, kinds taken in turn so every kind gets its share of any prefix."""
    by_kind: dict[str, list[T]] = defaultdict(list)
    for item in items:
        by_kind[kind(item)].append(item)
    queues = [rng.sample(group, len(group)) for _, group in sorted(by_kind.items())]
    rng.shuffle(queues)
    ordered = []
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.pop())
    return ordered
