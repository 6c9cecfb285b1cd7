"""A pytest plugin for the benchmark (loaded with -p, never by Codur): writes each test's
outcome, and for a failure the test file's failing statement and the error's first lines,
to the JSON file named by $REALREPO_OUTCOMES."""

from __future__ import annotations

import json
import os
from pathlib import Path

_results: dict[str, dict] = {}


def _statement(item, excinfo) -> str:
    """The statement of the test file's own frame where the test failed (the reproducer)."""
    test_file = Path(str(item.fspath)).resolve()
    found = ""
    for entry in excinfo.traceback:
        if Path(str(entry.path)).resolve() == test_file:
            try:
                found = str(entry.statement).strip()
            except (OSError, IndexError, ValueError) as exc:  # a source pytest cannot read
                found = f"<statement unavailable: {type(exc).__name__}>"
    return found


def pytest_runtest_makereport(item, call):
    if call.excinfo is not None and call.when == "call":
        record = _results.setdefault(item.nodeid, {})
        record["statement"] = _statement(item, call.excinfo)
        record["error"] = call.excinfo.exconly()[:600]


def pytest_runtest_logreport(report):
    record = _results.setdefault(report.nodeid, {})
    if report.failed:
        record["outcome"] = "failed" if report.when == "call" else "error"
    elif report.when == "call" and "outcome" not in record:
        record["outcome"] = "skipped" if report.skipped else "passed"
    elif report.skipped and "outcome" not in record:
        record["outcome"] = "skipped"


def pytest_collectreport(report):
    if report.failed:
        _results[report.nodeid or "<collection>"] = {"outcome": "error", "error": "collection"}


def pytest_sessionfinish(session):
    path = os.environ.get("REALREPO_OUTCOMES")
    if path:
        Path(path).write_text(json.dumps(_results, indent=0), encoding="utf-8")
