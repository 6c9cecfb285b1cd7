"""The debug log read leniently: its records grouped by run, and a run found by id.

Any past log reads. A line that is no JSON object is skipped and counted (the last line
of a killed run is often cut mid-way); a record without a run id belongs to the run of
the line before it. Nothing here requires a field: the tree reads what is there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.errors import UsageError
from codur.log import rotated

Record = dict[str, Any]


@dataclass
class RunLog:
    """The records of one run, in log order (a resumed run's from every process)."""

    run_id: str
    records: list[Record] = field(default_factory=list)


@dataclass
class LogFile:
    path: Path
    runs: dict[str, RunLog]
    """Every run of the log, in order of their first line."""
    last: str | None
    """The run of the log's last record (None: no record at all)."""
    unreadable: int = 0
    """Lines that are no JSON object (a cut last line not counted)."""
    cut: bool = False
    """The last line is cut mid-way (a killed run, or a run still writing)."""

    def notes(self) -> list[str]:
        """What the reader skipped, said for the trace."""
        out = []
        if self.cut:
            out.append("the log's last line is cut (a killed run, or one still writing)")
        if self.unreadable:
            out.append(f"{self.unreadable} unreadable line(s) of the log skipped")
        return out


def read_log(path: Path) -> LogFile:
    """Every readable record of the log at `path`, after those of the runs before it that
    `log.max_bytes` moved aside (`codur.log.rotated`); UsageError if there is no log."""
    try:
        before = rotated(path).read_bytes()
    except OSError:  # none yet (or unreadable): the log alone
        before = b""
    if before and not before.endswith(b"\n"):
        before += b"\n"  # a run cut short there: its last line stays its own
    try:
        data = before + path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no debug log at {path} (see log.path; is log.enabled off?)") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the debug log ({exc.strerror or exc})") from None
    lines = data.decode("utf-8", errors="replace").split("\n")
    ends_open = bool(lines) and lines[-1].strip() != ""  # no newline after the last line
    log = LogFile(path, {}, None)
    current: str | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record = _parse(line)
        if record is None:
            if number == len(lines) and ends_open:
                log.cut = True
            else:
                log.unreadable += 1
            continue
        run_id = _run_id(record) or current or "(no run id)"
        log.runs.setdefault(run_id, RunLog(run_id)).records.append(record)
        current = log.last = run_id
    return log


def find_run(log: LogFile, wanted: str | None) -> RunLog:
    """Run `wanted` of the log: its id, or the start or end of it when only one run
    matches (as `codur runs` and `codur undo` take ids); None: the log's last run."""
    if wanted is None:
        if log.last is None:
            raise UsageError(f"{log.path}: no run in the debug log")
        return log.runs[log.last]
    if wanted in log.runs:
        return log.runs[wanted]
    found = [r for r in log.runs if wanted and (r.startswith(wanted) or r.endswith(wanted))]
    if len(found) == 1:
        return log.runs[found[0]]
    if not found:
        raise UsageError(f"{wanted}: no such run in {log.path} (see codur runs)")
    raise UsageError(f"{wanted}: ambiguous, it matches {', '.join(found)}")


def _parse(line: str) -> Record | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _run_id(record: Record) -> str | None:
    for key in ("run", "run_id"):  # run_id: run.start's own field, and older logs
        value = record.get(key)
        if isinstance(value, str | int) and str(value):
            return str(value)
    return None
