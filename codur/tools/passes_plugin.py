"""A pytest plugin Codur loads into the project's test run (`-p codur_passes_<token>`, from a
folder of its own): for each test that passed, where it is written and in which class,
as JSON lines in `$CODUR_PASSES/<pid>.jsonl` (one file a process: xdist's workers each
write theirs). Where pytest's ids cannot say it: the file defining a mixin's test, the
classes a test's class inherits from, absolute paths whatever pytest's rootdir.

This file is copied, not imported by Codur: it runs in the project's Python, so it uses
only the standard library and pytest's hooks."""

import inspect
import json
import os

_WHERE = {}
_FAILED = set()
_PASSED = []


def pytest_collection_modifyitems(items):
    for item in items:
        function = getattr(item, "function", None)
        code = getattr(inspect.unwrap(function), "__code__", None) if function else None
        cls = getattr(item, "cls", None)
        _WHERE[item.nodeid] = {
            "files": sorted({str(item.path), *([code.co_filename] if code else [])}),
            "name": getattr(item, "originalname", None) or item.name.split("[")[0],
            "classes": [c.__qualname__ for c in cls.__mro__] if cls else [""],
        }


def pytest_runtest_logreport(report):
    if report.failed or report.skipped:
        _FAILED.add(report.nodeid)
    elif report.when == "call" and report.passed:
        _PASSED.append(report.nodeid)


def pytest_sessionfinish(session):
    folder = os.environ.get("CODUR_PASSES")
    rows = [_WHERE[n] for n in dict.fromkeys(_PASSED) if n in _WHERE and n not in _FAILED]
    if folder and _WHERE:
        path = os.path.join(folder, f"{os.getpid()}.jsonl")
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(json.dumps(row) + "\n" for row in rows)
