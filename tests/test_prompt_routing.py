"""Every prompt goes through the promptbook: each file in prompts/ is a registered prompt
(so a user can replace it and its placeholders are checked when it loads), no module
reads a prompt file itself, every `render` call in codur names a registered prompt with
exactly its placeholders, and docs/prompts.md lists them all."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from helpers import ROOT
from test_prompts import project

from codur.config import load_config
from codur.errors import ConfigError
from codur.promptbook import REGISTRY, PromptBook

CODUR = ROOT / "codur"


def test_every_file_in_prompts_is_one_registered_prompt() -> None:
    files = sorted(p.name for p in (ROOT / "prompts").iterdir())
    registered = sorted(spec.file for spec in REGISTRY.values())
    assert registered == files  # each file once, none missing, none extra
    book = PromptBook()  # every shipped prompt is checked against its spec here
    for name in REGISTRY:
        assert book.get(name).source is None and book.example(name).strip(), name


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(), str(path))) for path in CODUR.rglob("*.py")]


def test_only_the_promptbook_reads_prompt_files() -> None:
    readers = []
    for path, tree in _sources():
        if path.parent.name == "promptbook":
            continue
        for node in ast.walk(tree):
            imported = isinstance(node, ast.ImportFrom) and node.module == "codur.resources"
            if imported and any(a.name == "prompt" for a in node.names):
                readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            attribute = isinstance(node, ast.Attribute) and node.attr == "prompt"
            if attribute and isinstance(node.value, ast.Name) and node.value.id == "resources":
                readers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert readers == []


def test_every_render_call_names_a_prompt_and_gives_exactly_its_placeholders() -> None:
    calls = 0
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "render"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            where, name = f"{path.relative_to(ROOT)}:{node.lineno}", node.args[0].value
            assert name in REGISTRY, f"{where}: no prompt '{name}'"
            if any(k.arg is None for k in node.keywords):  # **values: checked when it runs
                continue
            given = {k.arg for k in node.keywords}
            assert given == set(REGISTRY[name].placeholders), f"{where}: {name} {given}"
            calls += 1
    assert calls > 40  # the scan sees the calls (a rename of `render` would hide them)


@pytest.mark.parametrize(
    ("name", "text", "wrong"),
    [
        ("verification_failed", "Failed: {problems}\n{actual}", "missing required .*{expected}"),
        ("coder_evidence", "It fails: {failure} ({reason})", "unknown placeholders {reason}"),
        ("edit_rejected", "Rejected {eror}", "missing required .*{error}"),
    ],
)
def test_a_custom_part_that_does_not_fit_fails_when_the_config_loads(
    tmp_path: Path, name: str, text: str, wrong: str
) -> None:
    root = project(tmp_path, {name: "p.md"}, {"p.md": text})
    with pytest.raises(ConfigError, match=rf"prompt '{name}' in .*p.md: {wrong}"):
        load_config(root, environ={})


def test_docs_list_every_prompt() -> None:
    docs = (ROOT / "docs" / "prompts.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| `(\w+\.md)` \|", docs, re.M)
    assert sorted(rows) == sorted((name, spec.file) for name, spec in REGISTRY.items())
