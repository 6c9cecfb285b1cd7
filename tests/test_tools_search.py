"""Search tools on a real tree: names and globs; grep with ripgrep and with the fallback."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import LOG

from codur.config.schema import ToolsConfig
from codur.tools.search import ripgrep_binary

TREE = {
    ".gitignore": "*.log\ndist/\n",
    "app/main.py": "import os\n\ndef main():\n    print('Hello World')\n",
    "app/util.py": "def helper():\n    return 'hello'\n",
    "app/README.md": "Hello docs\n",
    "tests/test_main.py": "def test_main():\n    assert True  # hello\n",
    "debug.log": "hello from a log\n",
    "dist/bundle.js": "hello()\n",
    ".env": "HELLO_TOKEN=s3cr3t\n",
    "keys/id_rsa": "hello private key\n",
    "blob.bin": "hello\x00binary",
    "node_modules/pkg/index.js": "hello\n",
}


@pytest.fixture
def tree(tool_ws: Path) -> Path:
    for rel, text in TREE.items():
        (tool_ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (tool_ws / rel).write_text(text)
    return tool_ws


def test_ripgrep_comes_from_the_pinned_wheel() -> None:
    rg = ripgrep_binary()
    assert rg is not None and Path(rg).is_file()


def test_search_files_by_glob_and_by_text(call, tree) -> None:
    assert call("search_files", pattern="*.py").value == [
        "app/main.py", "app/util.py", "tests/test_main.py",
    ]  # fmt: skip
    assert call("search_files", pattern="tests/*.py").value == ["tests/test_main.py"]
    assert call("search_files", pattern="MAIN").value == [
        "app/main.py", "tests/test_main.py",
    ]  # fmt: skip
    assert call("search_files", pattern="app").value == ["app/"]
    assert call("search_files", pattern="*.log").value == []
    assert call("search_files", pattern="*.py", path="tests").value == ["tests/test_main.py"]
    assert "not a folder" in call("search_files", pattern="x", path="app/main.py").output


@pytest.fixture(params=["ripgrep", "python"])
def engine(request: pytest.FixtureRequest, tool_ctx) -> str:
    tool_ctx.config = ToolsConfig(grep_backend=request.param)
    return request.param


def test_grep_finds_lines_and_skips_ignored_secret_and_binary_files(call, tree, engine) -> None:
    result = call("grep_files", pattern="hello", ignore_case=True)
    assert result.ok and result.value.engine == engine
    assert result.value.matches == [
        "app/README.md:1: Hello docs",
        "app/main.py:4:     print('Hello World')",
        "app/util.py:2:     return 'hello'",
        "tests/test_main.py:2:     assert True  # hello",
    ]


def test_grep_options(call, tree, engine) -> None:
    assert call("grep_files", pattern="hello").value.matches == [
        "app/util.py:2:     return 'hello'",
        "tests/test_main.py:2:     assert True  # hello",
    ]
    assert call("grep_files", pattern=r"def \w+", glob="test_*.py").value.matches == [
        "tests/test_main.py:1: def test_main():",
    ]
    assert call("grep_files", pattern="def", path="app/util.py").value.matches == [
        "app/util.py:1: def helper():",
    ]
    assert call("grep_files", pattern="nothing-like-this").output == "(no matches)"
    assert "no such file" in call("grep_files", pattern="x", path="missing").output


def test_grep_secrets_when_allowed(call, tool_ctx, tree, engine) -> None:
    tool_ctx.config = ToolsConfig(grep_backend=engine, allow_secrets=True)
    assert call("grep_files", pattern="s3cr3t").value.matches == [".env:1: HELLO_TOKEN=s3cr3t"]


def test_grep_caps_matches(call, tool_ctx, tool_ws, engine) -> None:
    (tool_ws / "many.txt").write_text("match\n" * 50)
    tool_ctx.config = ToolsConfig(grep_backend=engine, grep_max_matches=10)
    result = call("grep_files", pattern="match")
    assert len(result.value.matches) == 10
    assert result.output.endswith("[more than 10 matches; narrow the pattern or path]")


def test_grep_bad_regex_is_an_error_result(call, tree, engine) -> None:
    result = call("grep_files", pattern="(unclosed")
    assert not result.ok and "(unclosed" in result.output


def test_python_regex_features_fall_back_from_ripgrep(call, tree, tool_ctx) -> None:
    tool_ctx.config = ToolsConfig(grep_backend="auto")
    result = call("grep_files", pattern=r"(?<=return )'hello'")
    assert result.value.engine == "python"
    assert result.value.matches == ["app/util.py:2:     return 'hello'"]
    assert call("grep_files", pattern="helper").value.engine == "ripgrep"


def test_search_never_finds_codurs_own_files(call, tool_ws: Path, engine) -> None:
    """The debug log holds earlier prompts and replies: found by a search, they would go
    back to the model as if they were the project's code."""
    for rel in (LOG, ".codur/memory.json", "app/main.py"):
        (tool_ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (tool_ws / rel).write_text("needle = 1\n")
    found = call("grep_files", pattern="needle")
    assert found.ok and found.value.matches == ["app/main.py:1: needle = 1"]
    listed = call("search_files", pattern="*")
    assert listed.ok and ".codur" not in str(listed.value)
