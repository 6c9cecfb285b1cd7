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
