"""`codur graph` (Mermaid, ASCII, PNG) and `codur agents`, through the real command."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT, run_cli

from codur.errors import ExitCode


def run_without(modules: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`codur ARGS` in a process where `modules` cannot be imported (installed or not)."""
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n    sys.modules[name] = None\n"
        "from codur.cli import main\n"
        f"main({args!r})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_graph_prints_mermaid_by_default_and_with_the_flag(tmp_path: Path) -> None:
    plain, flag = run_cli(["graph"], cwd=tmp_path), run_cli(["graph", "--mermaid"], cwd=tmp_path)
    assert plain.returncode == flag.returncode == 0 and plain.stdout == flag.stdout
    assert "graph TD;" in plain.stdout and "review -.-> delegate" in plain.stdout
    assert "subgraph execute" in plain.stdout  # the agent loop is drawn inside execute
    assert "subgraph explain" in plain.stdout  # the ask graph inside the explain route
    assert "llm_plan -.-> run_command" in plain.stdout
    assert "execute\\3aagent -.-> execute\\3atools;" in plain.stdout
    assert "execute\\3atools -.-> execute\\3aagent;" in plain.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("grandalf") is None, reason="needs grandalf (codur[graph], dev)"
)
def test_graph_ascii_draws_every_node(tmp_path: Path) -> None:
    result = run_cli(["graph", "--ascii"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for node in ("__start__", "textual_pre_plan", "llm_plan", "review", "__end__"):
        assert f"| {node} |" in result.stdout
    for node in ("prepare", "agent", "tools", "finish"):  # the execute step's subgraph
        assert f"| {node} |" in result.stdout
    assert "graph TD" not in result.stdout


def test_graph_ascii_without_grandalf_names_the_extra(tmp_path: Path) -> None:
    result = run_without(["grandalf"], ["graph", "--ascii"], tmp_path)
    assert result.returncode == ExitCode.MISSING_EXTRA == 7
    assert result.stderr.strip() == (
        "codur: error: codur graph --ascii needs the grandalf package: pip install 'codur[graph]'"
    )
    assert result.stdout == ""


def test_graph_png_without_graphviz_names_the_extra(tmp_path: Path) -> None:
    result = run_without(["pygraphviz"], ["graph", "--png", "out.png"], tmp_path)
    assert result.returncode == 7
    assert "needs the pygraphviz package: pip install 'codur[graph-png]'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.png").exists()


def test_graph_png_never_overwrites_a_file_that_is_no_png(tmp_path: Path) -> None:
    """`codur graph --png main.py` wrote a PNG over the user's program (a probe's report)."""
    (tmp_path / "main.py").write_text("print(1)\n")
    result = run_cli(["graph", "--png", "main.py"], cwd=tmp_path)
    assert result.returncode == 2 and (tmp_path / "main.py").read_text() == "print(1)\n"
    assert result.stderr.strip() == (
        "codur: error: --png main.py: the file exists and is not a PNG image; it is not "
        "overwritten (name a new file)"
    )
    (tmp_path / "empty.png").write_bytes(b"")  # `mktemp --suffix .png`: nothing to lose
    empty = run_cli(["graph", "--png", "empty.png"], cwd=tmp_path)
    assert "not a PNG image" not in empty.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("pygraphviz") is None, reason="needs pygraphviz (codur[graph-png])"
)
def test_graph_png_is_drawn_offline(tmp_path: Path) -> None:
    result = run_cli(["graph", "--png", "out.png"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_graph_formats_are_exclusive(tmp_path: Path) -> None:
    result = run_cli(["graph", "--ascii", "--png", "out.png"], cwd=tmp_path)
    assert result.returncode == 2 and "choose one of --ascii, --png" in result.stderr


def test_agents_lists_agents_and_profiles_without_loading_a_model(tmp_path: Path) -> None:
    args = [
        "agents",
        "-o", "agents.configs.fast.profile=groq",
        "-o", "agents.configs.fast.description=Quick answers",
    ]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "codur", *args],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "250"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    coder = [c.strip() for c in rows["*agent:coder"].split("│")]
    assert coder[1:4] == ["coder", "local", "local"] and "qwen2.5-coder-1.5b" in coder[4]
    assert coder[5] == "file_operation, search, code_validation"
    assert coder[6].startswith("General coding agent")
    fast = [c.strip() for c in rows["agent:fast"].split("│")]
    assert fast[1:5] == ["coder", "groq", "openai", "qwen/qwen3-32b"]
    assert fast[6] == "Quick answers"
    assert "*local" in rows and "GROQ_API_KEY (not set)" in rows["groq"]
    imported = [line.split("|")[-1].strip() for line in result.stderr.splitlines()]
    assert not [m for m in imported if m.startswith(("llama_cpp", "openai", "httpx"))]
