"""The run journal: every finished run of `codur challenges run` is appended to
OUT/runs.jsonl as it ends, so a long run that was interrupted (Ctrl-C, a closed session, a
crash) continues where it stopped when run again with the same --out. OUT/settings.json
records what the runs were made with; a rerun with other settings is refused, so one
report never mixes two configurations."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict
from pathlib import Path

from codur.challenges.outcome import JudgedRun
from codur.errors import UsageError

RunKey = tuple[str, int | None]
"""A run: the challenge's name and its seed."""


class Journal:
    def __init__(self, out: Path, settings: dict) -> None:
        self.path = out / "runs.jsonl"
        self._lock = threading.Lock()
        recorded = out / "settings.json"
        if recorded.is_file() and json.loads(recorded.read_text()) != settings:
            raise UsageError(
                f"{out} holds runs made with other settings (see {recorded}); "
                "use another --out, or remove that folder to start again"
            )
        out.mkdir(parents=True, exist_ok=True)
        recorded.write_text(json.dumps(settings, indent=1) + "\n")

    def finished(self) -> dict[RunKey, JudgedRun]:
        """The runs already in the journal (a line cut short by a kill is ignored)."""
        done: dict[RunKey, JudgedRun] = {}
        if not self.path.is_file():
            return done
        for line in self.path.read_text().splitlines():
            try:
                outcome = JudgedRun(**json.loads(line))
            except (json.JSONDecodeError, TypeError):
                continue  # the last line of a killed run: that run is made again
            done[(outcome.name, outcome.seed)] = outcome
        return done

    def add(self, outcome: JudgedRun) -> None:
        line = json.dumps(asdict(outcome)) + "\n"
        with self._lock, self.path.open("a") as f:
            f.write(line)
            f.flush()
