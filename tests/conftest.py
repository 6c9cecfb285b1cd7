"""Shared pytest fixtures. Add new fixtures in their own section below."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_servers import AnthropicServer, OllamaServer, OpenAIServer

# --- fake model servers (tests/fake_servers.py) -------------------------------------


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """An OpenAI-compatible server, strict like llama.cpp's (rejects null content)."""
    server = OpenAIServer(strict=True).start()
    yield server
    server.stop()


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    """An Ollama /api/chat server."""
    server = OllamaServer().start()
    yield server
    server.stop()


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """A Messages API server, strict like Anthropic's (key, max_tokens, turn order)."""
    server = AnthropicServer().start()
    yield server
    server.stop()


# --- isolation: no test reads or writes the real user's config, cache or state -----------


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """XDG config/state point at a fresh folder; the model cache is shared (it is 1 GB)."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    for name in [n for n in __import__("os").environ if n.startswith("CODUR_")]:
        monkeypatch.delenv(name)
    for name in ("COLUMNS", "LINES"):  # pytest-xdist's workers set them (80x24): a test
        monkeypatch.delenv(name, raising=False)  # that needs a width sets its own
    _pin_project_python(monkeypatch)


def _pin_project_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's Python of every test folder is the one running the tests (its venv as
    if activated), not whatever `python3` the machine's PATH has; the tests of the
    interpreter's choice (test_project_python.py) remove it."""
    import sys

    if sys.prefix != sys.base_prefix:
        monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)


# --- tools (codur/tools): a workspace, a tool context, a real git repo, an MCP server ----


@pytest.fixture
def tool_ws(tmp_path):
    """An empty workspace folder, tmp_path/ws (tmp_path itself is "outside")."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def tool_ctx(tool_ws):
    """A ToolContext on `tool_ws` with the default tools config; events go to `.events`."""
    from codur.config.schema import ToolsConfig
    from codur.events import EventBus
    from codur.tools.context import ToolContext
    from codur.workspace import Workspace

    bus = EventBus()
    ctx = ToolContext(Workspace(tool_ws), ToolsConfig(), bus)
    ctx.events = []  # type: ignore[attr-defined]
    bus.subscribe(ctx.events.append)  # type: ignore[attr-defined]
    yield ctx
    ctx.close()


@pytest.fixture
def call(tool_ctx):
    """`call("read_file", path="x")`: invoke a tool through the registry with `tool_ctx`."""
    from codur.tools.registry import invoke

    return lambda _tool, **args: invoke(_tool, args, tool_ctx)


@pytest.fixture
def git_repo(tool_ws):
    """`tool_ws` as a git repository with one commit (README.md), identity set locally."""
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tool_ws, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.name", "Codur Test")
    git("config", "user.email", "codur@example.invalid")
    git("config", "commit.gpgsign", "false")
    (tool_ws / "README.md").write_text("# demo\n")
    git("add", "README.md")
    git("commit", "-q", "-m", "initial commit")
    return tool_ws


@pytest.fixture
def mcp_stdio_server():
    """The McpServerConfig that starts tests/mcp_server.py over stdio."""
    import sys
    from pathlib import Path

    from codur.config.schema import McpServerConfig

    script = Path(__file__).with_name("mcp_server.py")
    return McpServerConfig(command=sys.executable, args=[str(script)])


# --- tiers: the fast tier (`-m "not slow"`) leaves out what runs real models too ----------


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test of the embedded model is slow as well (loading it takes seconds)."""
    for item in items:
        if item.get_closest_marker("embedded") is not None:
            item.add_marker(pytest.mark.slow)


# --- the two ways a program starts (codur.sandbox.started) ---------------------------


@pytest.fixture(params=["fork", "exec"])
def both_ways(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test runs twice: programs forked from Codur, then started through child.py
    (as when Codur's memory is large: the embedded model loaded)."""
    from codur.sandbox import started

    bound = 0 if request.param == "exec" else 1 << 62
    monkeypatch.setattr(started, "FORK_BELOW_BYTES", bound)
    return request.param
