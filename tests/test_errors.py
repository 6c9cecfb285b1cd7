"""Exit codes: the README's table and `ExitCode` list the same codes."""

from __future__ import annotations

import re

from helpers import ROOT

from codur.errors import ExitCode


def readme_exit_codes() -> dict[int, str]:
    """The rows of the README's "### Exit codes" table: code -> meaning."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    return {int(m[1]): m[2] for m in re.finditer(r"^\| (\d+) \| (.+) \|$", section, re.M)}


def test_the_readme_documents_every_exit_code_and_no_other() -> None:
    documented = readme_exit_codes()
    assert sorted(documented) == sorted(int(code) for code in ExitCode)
    assert all(meaning.strip() for meaning in documented.values())


def test_each_code_is_documented_where_it_is_defined() -> None:
    source = (ROOT / "codur" / "errors.py").read_text(encoding="utf-8")
    for code in ExitCode:
        after = source.split(f"    {code.name} = {int(code)}\n", 1)[1]
        assert after.lstrip().startswith('"""'), f"{code.name} has no docstring"
