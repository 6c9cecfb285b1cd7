"""One write path: an agent's edit and a tool's write of the same change meet the same
rules (edit scope, approval, the run's record), on real files."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_honest_verdict import FLIPPED, HONEST, SELF_CHECK

from codur.config import load_config
from codur.events import EventBus
from codur.scope import ScopeError, decide_scope
from codur.session import Session
from codur.tools.registry import invoke
from codur.undo.snapshot import begin
from codur.workspace import Workspace

FIX_AND_FLIP = FLIPPED.replace("    return total\n", "    return total + n\n")
"""The fix of the code under test, and a change to the harness that would fake a pass."""


def session_on(root: Path) -> tuple[Session, list, list[str]]:
    """A suggest-mode session fixing @main.py, with its scope and snapshot; its events,
    and the approval questions it asked (each answered yes)."""
    (root / "main.py").write_text(SELF_CHECK)
    config = load_config(root, overrides=["approval.mode=suggest"]).config
    events: list = []
    asked: list[str] = []
    bus = EventBus()
    bus.subscribe(events.append)
    session = Session(config, Workspace(root), bus, confirm=lambda q, d: asked.append(q) or True)
    session.changes.scope = decide_scope("fix @main.py", root, "expected.txt", set())
    session.changes.snapshot = begin(session.ws, config, session.run_id, "fix @main.py", bus)
    return session, events, asked


def seen(events: list, kind: str) -> list[dict]:
    """The data of the `kind` events, without who caused them (`by`)."""
    return [{k: v for k, v in e.data.items() if k != "by"} for e in events if e.kind == kind]


def test_an_agent_edit_and_a_tool_write_keep_the_harness_alike(tmp_path: Path) -> None:
    agent_root, tool_root = tmp_path / "agent", tmp_path / "tool"
    agent_root.mkdir()
    tool_root.mkdir()
    agent, agent_events, agent_asked = session_on(agent_root)
    agent.changes.write("main.py", FIX_AND_FLIP, by="coder")
    tool, tool_events, tool_asked = session_on(tool_root)
    result = invoke("write_file", {"path": "main.py", "content": FIX_AND_FLIP}, tool.tool_context())
    assert result.ok, result.output
    assert "harness" in result.output  # the model is told what was left out
    for root in (agent_root, tool_root):
        assert (root / "main.py").read_text() == HONEST  # the fix, without the flip
    for events in (agent_events, tool_events):
        assert seen(events, "scope.kept_harness")[0]["path"] == "main.py"
        assert seen(events, "file.write") == [
            {"path": "main.py", "lines": len(HONEST.splitlines())}
        ]
    assert agent_asked == tool_asked and len(agent_asked) == 1
    assert agent.snapshot.saved == tool.snapshot.saved == {"main.py": True}


def test_an_agent_edit_and_a_tool_write_are_refused_alike(tmp_path: Path) -> None:
    agent, agent_events, _ = session_on(tmp_path)
    (tmp_path / "expected.txt").write_text("10\n")
    agent.changes.scope = decide_scope("fix @main.py", tmp_path, "expected.txt", set())
    with pytest.raises(ScopeError) as refused_edit:
        agent.changes.write("expected.txt", "9\n", by="coder")
    refusal = str(refused_edit.value)
    result = invoke("write_file", {"path": "expected.txt", "content": "9\n"}, agent.tool_context())
    assert not result.ok and refusal in result.output
    refused = seen(agent_events, "scope.refused")
    assert len(refused) == 2 and refused[0] == refused[1]
    assert (tmp_path / "expected.txt").read_text() == "10\n"
