"""Exit codes: the README's table, docs/cli.md's and `ExitCode` list the same codes."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT

from codur.errors import ExitCode


def documented_exit_codes(document: str, heading: str) -> dict[int, str]:
    """The rows of the "Exit codes" table under `heading` in `document`: code -> meaning."""
    text = (ROOT / document).read_text(encoding="utf-8")
    section = text.split(f"{heading}\n", 1)[1].split("\n#", 1)[0]
    return {int(m[1]): m[2] for m in re.finditer(r"^\| (\d+) \| (.+) \|$", section, re.M)}


@pytest.mark.parametrize(
    ("document", "heading"), [("README.md", "### Exit codes"), ("docs/cli.md", "## Exit codes")]
)
def test_the_docs_document_every_exit_code_and_no_other(document: str, heading: str) -> None:
    documented = documented_exit_codes(document, heading)
    assert sorted(documented) == sorted(int(code) for code in ExitCode)
    assert all(meaning.strip() for meaning in documented.values())


def test_each_code_is_documented_where_it_is_defined() -> None:
    source = (ROOT / "codur" / "errors.py").read_text(encoding="utf-8")
    for code in ExitCode:
        after = source.split(f"    {code.name} = {int(code)}\n", 1)[1]
        assert after.lstrip().startswith('"""'), f"{code.name} has no docstring"


def test_a_refused_permission_is_the_machine_s_only_where_codur_writes() -> None:
    """A read-only file system or a full disk is the machine's condition wherever it comes
    from; a permission refused only at one of Codur's writes (reading an unreadable file,
    or starting a program that is not executable, may be a bug and stays one)."""
    import errno

    from codur.errors import CannotWrite, cannot_write

    refused = PermissionError(errno.EACCES, "Permission denied", "secret.txt")
    assert cannot_write(refused) is None
    written = cannot_write(refused, "out.txt", writing=True)
    assert isinstance(written, CannotWrite) and str(written) == (
        "cannot write out.txt: permission denied (a read-only folder?)"
    )
    full = OSError(errno.ENOSPC, "No space left on device", "big.bin")
    assert str(cannot_write(full)) == (
        "cannot write big.bin: no space left on the disk; free some and run again"
    )
    assert cannot_write(written) is written and cannot_write(ValueError("x")) is None
