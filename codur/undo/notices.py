"""What a run's snapshots tell the user: the `snapshot` event, and one warning line per
kind of file left out of them or changed by someone other than the run."""

from __future__ import annotations

import time

from codur.events import EventBus
from codur.undo.store import Store
from codur.undo.tree import Taken

MIB = 1024 * 1024
SHOWN = 5
"""Files named in a snapshot warning before "and N more"."""


def left_out(taken: Taken) -> list[str]:
    return sorted([*(p for p, _ in taken.skipped), *taken.unreadable])


def emit(
    bus: EventBus, stage: str, store: Store, taken: Taken, started: float, warned: set[str]
) -> None:
    """The snapshot event, and one warning line per kind of file left out (once a run)."""
    bus.emit(
        "snapshot",
        stage=stage,
        store=store.kind,
        snapshot=taken.snap,
        files=sum(not entry.is_folder for entry in taken.tree.values()),
        skipped=left_out(taken),
        duration_s=round(time.perf_counter() - started, 3),
    )
    big = [(p, size) for p, size in taken.skipped if p not in warned]
    if big:
        shown = ", ".join(f"{p} ({_size(size)})" for p, size in big[:SHOWN])
        more = f" and {len(big) - SHOWN} more" if len(big) > SHOWN else ""
        bus.emit(
            "warning",
            message=f"snapshot: {len(big)} file(s) over the {store.cap_bytes / MIB:.3g} MiB cap "
            f"(undo.max_snapshot_mb) not saved; undo cannot restore them: {shown}{more}",
        )
    unreadable = [p for p in taken.unreadable if p not in warned]
    if unreadable:
        shown = ", ".join(unreadable[:SHOWN])
        more = f" and {len(unreadable) - SHOWN} more" if len(unreadable) > SHOWN else ""
        bus.emit(
            "warning",
            message=f"snapshot: could not read {shown}{more}; undo cannot restore them",
        )
    warned.update(p for p, _ in big)
    warned.update(unreadable)


def listed(paths: list[str]) -> str:
    more = f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else ""
    return ", ".join(paths[:SHOWN]) + more


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1024)):
        if n >= scale:
            return f"{n / scale:.0f} {unit}"
    return f"{n} bytes"
