"""A CLI agent and the `.git` entries it must not make or change (they would run later,
outside the sandbox), and the state of its own it may not write: real stand-in CLIs
(cli_stand_ins.py) on real folders."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from cli_stand_ins import install
from helpers import BUGGY, buggy_folder, delegate_to, run_in_process

from codur.agents.claude_code import SPEC as CLAUDE
from codur.errors import AgentUnavailable
from codur.sandbox import confine, readonly
from codur.sandbox.confine import Landlock, detect

CONFINER, NOT_CONFINED = detect("auto", 30)
CODEX = ["agents.preferences.default_agent=agent:codex", "approval.mode=full-auto"]


@pytest.fixture
def cli_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder first on PATH for stand-ins, and a HOME of its own (the CLIs' state)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (tmp_path / "home" / ".codex").mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return folder


def test_a_git_made_by_the_cli_fails_the_attempt_and_is_removed(
    tmp_path: Path, cli_path: Path
) -> None:
    install(cli_path, "codex", mode="new-git")
    root = buggy_folder(tmp_path / "p")
    assert not (root / ".git").exists()
    result, _, _ = run_in_process(root, [delegate_to("agent:codex")], overrides=CODEX)
    assert result.status == "failed", result.message
    assert "agent:codex made or changed .git" in result.message and "removed" in result.message
    assert not (root / ".git").exists()


def test_a_symlinked_git_is_refused_before_the_cli_starts(tmp_path: Path, cli_path: Path) -> None:
    marker = tmp_path / "ran"
    script = cli_path / "codex"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    root = buggy_folder(tmp_path / "p")
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True, timeout=30)
    (root / ".git").symlink_to(tmp_path / "repo" / ".git")
    with pytest.raises(AgentUnavailable) as err:
        run_in_process(root, [delegate_to("agent:codex")], overrides=CODEX)
    assert "the workspace's .git is a symbolic link" in str(err.value)
    assert not marker.exists()
    assert (root / "main.py").read_text() == BUGGY


@pytest.mark.slow
@pytest.mark.skipif(
    not isinstance(CONFINER, Landlock), reason=f"Landlock is not used here: {NOT_CONFINED}"
)
def test_without_namespaces_or_bubblewrap_the_cli_is_unavailable_before_it_starts(
    tmp_path: Path, cli_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe's answer is used: no mount namespace and no bubblewrap -> the agent is
    unavailable, with the remedies, and the CLI never starts."""
    monkeypatch.setattr(readonly, "unavailable", lambda: "unshare: Operation not permitted")
    monkeypatch.setattr(confine, "bubblewrap_unavailable", lambda _: ("bwrap is not installed", ""))
    marker = Path(os.environ["HOME"]) / ".codex" / "sessions" / "ran"  # writable when confined
    script = cli_path / "codex"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    root = buggy_folder(tmp_path / "p")
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=30)
    with pytest.raises(AgentUnavailable) as err:
        run_in_process(root, [delegate_to("agent:codex")], overrides=CODEX)
    message = str(err.value)
    assert "cannot run confined here: the workspace's .git cannot be kept read-only" in message
    assert "unshare: Operation not permitted" in message and "\n" not in message
    assert "install bubblewrap" in message and "sandbox.confine=off" in message
    assert not marker.exists()


@pytest.mark.parametrize("privileged", [True, False])
def test_the_namespace_probe_runs_once_and_names_what_failed(
    privileged: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe runs `keep_read_only`'s child half in a real child: None where it works,
    else one line naming the step that failed; cached for the process."""
    monkeypatch.setattr(readonly, "_has_sys_admin", lambda: privileged)
    readonly.unavailable.cache_clear()
    try:
        first = readonly.unavailable()
        assert readonly.unavailable() is first and readonly.unavailable.cache_info().hits == 1
        assert first is None or first.startswith("no mount namespace of its own: "), first
        assert first is None or "\n" not in first
    finally:
        readonly.unavailable.cache_clear()


def test_claude_may_not_write_what_its_unconfined_shell_sources() -> None:
    """Claude Code sources shell-snapshots (and session-env) before each Bash command of
    the user's own sessions: a confined run may not write there."""
    written = {Path(p).name for p in CLAUDE.writable}
    assert not written & {"shell-snapshots", "session-env"}
    assert {"projects", "todos"} <= written
