"""Shared pytest fixtures. Add new fixtures in their own section below."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_servers import OllamaServer, OpenAIServer

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
