"""The tests a pytest run passed, from its JUnit XML report (`--junitxml`, xunit1: each
test case with the file that defines it). Written to a file, a suite of thousands of
tests lists its passes without flooding the output the run keeps."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

OPTIONS = ("-o", "junit_family=xunit1")
"""xunit1 keeps each case's `file` (the one defining the test: a mixin's)."""
UNKNOWN = "*"
"""The class of a test whose class is not the defining file's (a mixin's method)."""


def flags(report: Path) -> list[str]:
    return [f"--junitxml={report}", *OPTIONS]


def passed(report: Path) -> list[str] | None:
    """`file::Class::name` (or `file::name`) of each test the report shows passed; the
    class is `*` where the test is defined in another file than its class (a mixin).
    None when there is no report to read (the run was stopped)."""
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return None
    found = []
    for case in root.iter("testcase"):
        if any(child.tag in ("failure", "error", "skipped") for child in case):
            continue
        file = (case.get("file") or "").replace("\\", "/")
        name = (case.get("name") or "").split("[")[0]
        if not file.endswith(".py") or not name:
            continue
        module = str(PurePosixPath(file).with_suffix("")).replace("/", ".")
        classname = case.get("classname") or ""
        owner = UNKNOWN
        if classname == module:
            owner = ""
        elif classname.startswith(module + "."):
            owner = classname[len(module) + 1 :].replace(".", "::")
        found.append(f"{file}::{owner}::{name}" if owner else f"{file}::{name}")
    return found
