"""Shared by the fault-injection tests: a run of the real `codur`, and what a clean end
looks like (its documented exit code, one line on stderr, never a traceback, and the
end record in the debug log)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import BUGGY, debug_log, run_cli


def workdir(tmp_path: Path, files: dict[str, str] | None = None) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    for name, text in (files or {"main.py": BUGGY, "expected.txt": "10\n"}).items():
        (work / name).write_text(text)
    return work


def records(work: Path) -> list[dict]:
    return [json.loads(line) for line in debug_log(work).read_text().splitlines()]


def ended(
    result: subprocess.CompletedProcess[str], work: Path, code: int, error: str | None = None
) -> dict:
    """Assert a clean end with `code`; `error`: text the one stderr line holds (besides
    warnings, such as what a stopped run left changed). The end record is returned."""
    out = result.stdout + result.stderr
    assert result.returncode == code, out
    assert "Traceback" not in out, out
    if error is not None:
        lines = result.stderr.strip().splitlines()
        lines = [line for line in lines if not line.startswith("codur: warning:")]
        assert len(lines) == 1 and error in lines[0], result.stderr
    end = records(work)[-1]
    assert end["event"] == "run.end" and end["exit_code"] == code, end
    return end


def openai_profile(base_url: str, **settings: object) -> list[str]:
    """Flags for a profile `srv` on an OpenAI-compatible server, no repair search."""
    values = {"provider": "openai", "base_url": base_url, "model": "m", "max_retries": 1}
    values |= {"retry_backoff_s": 0.01, **settings}
    flags = [f"-o llm.profiles.srv.{k}={v}" for k, v in values.items()]
    flags += ["-o repair.enabled=false", "-o sampling.candidates=0", "--profile srv"]
    return [part for flag in flags for part in flag.split(" ", 1)]


def codur(args: list[str], work: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=work, **kw)  # type: ignore[arg-type]
