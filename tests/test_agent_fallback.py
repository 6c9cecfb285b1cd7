"""Fallback between agents (agents.preferences.fallback_order) and between profiles
(llm.fallback_order), and the config errors for references that do not exist: real
`python -m codur` processes, stand-in CLIs on PATH, a closed port, a missing model file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_stand_ins import install
from fake_servers import unused_port
from helpers import (
    BUGGY,
    FIXED,
    buggy_folder,
    debug_log,
    delegate_to,
    run_cli,
    run_in_process,
    scripted_profile,
    whole_file,
)

from codur.config import load_config
from codur.errors import ConfigError


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def env_with(folder: Path) -> dict[str, str]:
    """PATH with `folder` first (and no real codex/claude behind it: PATH is the stand-in
    folder and the interpreter's, enough for git and python)."""
    return {"PATH": os.pathsep.join([str(folder), "/usr/bin", "/bin"]), "HOME": str(folder)}


@pytest.mark.slow
def test_missing_cli_falls_back_to_the_next_agent(tmp_path: Path, bin_dir: Path) -> None:
    install(bin_dir, "claude")  # no codex: the first agent is not installed
    root = buggy_folder(tmp_path / "proj")
    flags = scripted_profile(tmp_path, [delegate_to("agent:codex")])
    args = [
        "-o", "agents.preferences.default_agent=agent:codex",
        "-o", "agents.preferences.fallback_order=[agent:claude_code, agent:coder]",
        "--yes", *flags, "fix @main.py",
    ]  # fmt: skip
    done = run_cli(args, root, env=env_with(bin_dir))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / "main.py").read_text() == FIXED
    assert (
        "agent:codex failed (agent:codex needs the `codex` CLI: npm install -g @openai/codex "
        "(then `codex login`)): agent:claude_code takes over"
    ) in done.stdout
    events = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    switch = [e for e in events if e["event"] == "agent.fallback"]
    assert [(e["agent"], e["to"]) for e in switch] == [("agent:codex", "agent:claude_code")]


def test_failing_cli_falls_back_to_the_coder(
    tmp_path: Path, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(bin_dir, "codex", mode="fail")
    root = buggy_folder(tmp_path / "proj")
    replies = [delegate_to("agent:codex"), whole_file("main.py", FIXED)]
    overrides = [
        "agents.preferences.default_agent=agent:codex",
        "agents.preferences.fallback_order=[agent:coder]",
        "approval.mode=full-auto",
    ]
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the CLI's state folder goes there
    result, events, _ = run_in_process(root, replies, overrides=overrides)
    assert result.status == "verified" and (root / "main.py").read_text() == FIXED
    (switch,) = [e.data for e in events if e.kind == "agent.fallback"]
    assert switch["agent"] == "agent:codex" and switch["to"] == "agent:coder"
    assert switch["error"].startswith("agent:codex exited with code 1: codex: error: 401")
    # the coder's prompt does not carry the CLI's failure as an attempt at the code
    coder = [e.data for e in events if e.kind == "model.request"][-1]
    assert "401" not in coder["messages"][-1]["content"]


@pytest.mark.slow
def test_missing_cli_without_fallback_ends_in_one_line(tmp_path: Path, bin_dir: Path) -> None:
    root = buggy_folder(tmp_path / "proj")
    flags = scripted_profile(tmp_path, [delegate_to("agent:codex")])
    args = ["-o", "agents.preferences.default_agent=agent:codex", "--yes", *flags, "fix @main.py"]
    done = run_cli(args, root, env=env_with(bin_dir))
    assert done.returncode == 3
    assert done.stderr.strip().splitlines()[-1] == (
        "codur: error: agent:codex needs the `codex` CLI: npm install -g @openai/codex "
        "(then `codex login`)"
    )
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_unreachable_profile_falls_back_to_the_next(tmp_path: Path) -> None:
    """The first profile points at a closed port: the scripted profile answers instead."""
    root = buggy_folder(tmp_path / "proj")
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    args = [
        "-o", "llm.profiles.down.provider=openai",
        "-o", f"llm.profiles.down.base_url=http://127.0.0.1:{unused_port()}/v1",
        "-o", "llm.profiles.down.model=m",
        "-o", "llm.profiles.down.max_retries=0",
        "-o", "llm.fallback_order=[s]",
        *flags, "--profile", "down", "fix @main.py",
    ]  # fmt: skip
    done = run_cli(args, root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "profile down unreachable (" in done.stdout and "): using s" in done.stdout
    events = [json.loads(line) for line in debug_log(root).read_text().splitlines()]
    (switch,) = [e for e in events if e["event"] == "model.fallback"]
    assert switch["profile"] == "down" and switch["to"] == "s"
    assert "ConnectError" in switch["error"] or "Connection" in switch["error"]


def test_missing_model_file_falls_back_in_process(tmp_path: Path) -> None:
    """The embedded model's file is missing: the next profile of llm.fallback_order."""
    root = buggy_folder(tmp_path / "proj")
    overrides = [
        "llm.profiles.gone.provider=local",
        f"llm.profiles.gone.model_file={tmp_path / 'missing.gguf'}",
        "llm.default_profile=gone",
        "llm.fallback_order=[s]",
    ]
    result, events, session = run_in_process(
        root, [whole_file("main.py", FIXED)], overrides=overrides
    )
    assert result.status == "verified"
    (switch,) = [e.data for e in events if e.kind == "model.fallback"]
    assert (switch["profile"], switch["to"]) == ("gone", "s") and "missing.gguf" in switch["error"]
    assert session.client("gone").name == "s"  # later calls go straight to the fallback


def test_a_profile_whose_api_key_is_not_set_falls_back_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/configuration.md: a missing key stops the run with exit 2 "unless
    llm.fallback_order names other profiles"; the run went on to its first model call and
    stopped there with exit 2 (a docs probe)."""
    monkeypatch.delenv("CODUR_TEST_NO_SUCH_KEY", raising=False)
    root = buggy_folder(tmp_path / "proj")
    overrides = [
        "llm.profiles.keyed.provider=openai",
        "llm.profiles.keyed.model=m",
        "llm.profiles.keyed.api_key_env=CODUR_TEST_NO_SUCH_KEY",
        "llm.default_profile=keyed",
        "llm.fallback_order=[s]",
    ]
    result, events, _ = run_in_process(root, [whole_file("main.py", FIXED)], overrides=overrides)
    assert result.status == "verified"
    (switch,) = [e.data for e in events if e.kind == "model.fallback"]
    assert (switch["profile"], switch["to"]) == ("keyed", "s")
    assert "CODUR_TEST_NO_SUCH_KEY is not set" in switch["error"]


def test_a_profile_configured_wrongly_does_not_fall_back(tmp_path: Path) -> None:
    """Only a missing key makes a profile unusable here: any other config mistake (a
    malformed script) stops the run, rather than sending the task, and the code, to the
    next provider unasked (a review of the fallback on a missing key)."""
    from codur.errors import ConfigError

    root = buggy_folder(tmp_path / "proj")
    bad = tmp_path / "bad.yaml"
    bad.write_text("not: a list\n")
    overrides = [
        "llm.profiles.bad.provider=scripted",
        f"llm.profiles.bad.script={bad}",
        "llm.default_profile=bad",
        "llm.fallback_order=[s]",
    ]
    with pytest.raises(ConfigError, match="a script is a list of responses"):
        run_in_process(root, [whole_file("main.py", FIXED)], overrides=overrides)


@pytest.mark.slow
def test_unreachable_profile_without_fallback_still_ends_with_exit_3(tmp_path: Path) -> None:
    root = buggy_folder(tmp_path / "proj")
    args = [
        "-o", "llm.profiles.down.provider=ollama",
        "-o", f"llm.profiles.down.base_url=http://127.0.0.1:{unused_port()}",
        "-o", "llm.profiles.down.model=m",
        "-o", "llm.profiles.down.max_retries=0",
        "-o", "repair.enabled=false",
        "--profile", "down", "fix @main.py",
    ]  # fmt: skip
    done = run_cli(args, root)
    assert done.returncode == 3 and "profile 'down' at http://127.0.0.1:" in done.stderr


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "agents.preferences.default_agent=agent:codx",
            "key 'agents.preferences.default_agent': unknown agent 'agent:codx' (valid: "
            "agent:coder, agent:ollama, agent:codex, agent:claude_code, llm:local,",
        ),
        (
            "agents.preferences.fallback_order=[agent:codex, claude]",
            "key 'agents.preferences.fallback_order': unknown agent 'claude' (valid: agent:coder",
        ),
        (
            "llm.fallback_order=[groq, nope]",
            "key 'llm.fallback_order': unknown LLM profile 'nope' (configured: local, "
            "local-small, openai, groq, ollama)",
        ),
        (
            "agents.configs.coder.profile=nope",
            "key 'agents.configs.coder.profile': unknown LLM profile 'nope' (configured: local, "
            "local-small, openai, groq, ollama)",
        ),
        (
            "llm.default_profile=llm:nope",
            "key 'llm.default_profile': unknown LLM profile 'llm:nope' (configured: local,",
        ),
        (
            "ask.profile=agent:coder",
            "key 'ask.profile': 'agent:coder' is no ollama agent (ollama agents: agent:ollama)",
        ),
        (
            "agents.configs.x.type=gemini",
            "key 'agents.configs.x.type': Input should be 'llm', 'ollama', 'codex' or "
            "'claude_code' (got 'gemini')",
        ),
    ],
)
def test_unknown_references_are_config_errors(tmp_path: Path, override: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, overrides=[override], environ={})
    assert message in str(err.value)
    assert str(err.value).startswith(f"-o {override.split('=')[0]}: ")


def test_a_setting_of_another_agent_type_is_a_config_error(tmp_path: Path) -> None:
    extra = tmp_path / "extra.yaml"  # --config: trusted (an untrusted CLI entry is ignored)
    extra.write_text("agents:\n  configs:\n    fast:\n      type: codex\n      profile: groq\n")
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, config_file=extra, environ={})
    assert "key 'agents.configs.fast': profile: not a setting of a codex agent" in str(err.value)
    assert str(err.value).startswith(f"{extra}:3: ")


def test_wrong_default_agent_is_exit_2_from_the_cli(tmp_path: Path) -> None:
    """Before, a wrong default agent passed silently; now the run does not start."""
    root = buggy_folder(tmp_path / "proj")
    done = run_cli(["-o", "agents.preferences.default_agent=codx", "fix @main.py"], root)
    assert done.returncode == 2
    line = done.stderr.strip()
    assert line.startswith("codur: error: -o agents.preferences.default_agent: ")
    assert "unknown agent 'codx' (valid: agent:coder, agent:ollama, agent:codex" in line
    assert (root / "main.py").read_text() == BUGGY and not debug_log(root).exists()


def test_an_untrusted_project_may_not_choose_what_an_agent_runs(tmp_path: Path) -> None:
    """It may tune a CLI agent the user's config made, not what it starts; a CLI agent of
    its own is ignored as a whole (tests/test_trust_agents.py runs both)."""
    user = tmp_path / "user.yaml"
    user.write_text("agents:\n  configs:\n    x:\n      type: codex\n")
    (tmp_path / "codur.yaml").write_text(
        "agents:\n  configs:\n    x:\n      type: codex\n      command: ./evil\n"
        "      env_allow: ['*']\n      timeout_s: 60\n    y:\n      type: codex\n"
    )
    store = tmp_path / "trusted.json"
    loaded = load_config(tmp_path, environ={}, user_file=user, trust_store=store)
    entry = loaded.config.agents.configs["x"]
    assert (entry.command, entry.env_allow, entry.timeout_s) == (None, None, 60)
    assert "y" not in loaded.config.agents.configs
    ignored = "agents.configs.x.command, agents.configs.x.env_allow, agents.configs.y"
    assert f"may not set {ignored} (ignored;" in loaded.warnings[0]


def test_an_llm_agent_whose_key_is_missing_falls_back_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent's own profile with its key unset is an agent whose model cannot run:
    agents.preferences.fallback_order takes over (a reviewer's case: a change that made
    the missing key a ConfigError everywhere ended this run with exit code 2)."""
    monkeypatch.delenv("CODUR_TEST_NO_SUCH_KEY", raising=False)
    root = buggy_folder(tmp_path / "proj")
    overrides = [
        "llm.profiles.keyed.provider=openai",
        "llm.profiles.keyed.model=m",
        "llm.profiles.keyed.api_key_env=CODUR_TEST_NO_SUCH_KEY",
        "agents.configs.remote.type=llm",
        "agents.configs.remote.profile=keyed",
        "agents.preferences.default_agent=agent:remote",
        "agents.preferences.fallback_order=[agent:coder]",
        "approval.mode=full-auto",
    ]
    replies = [delegate_to("agent:remote"), whole_file("main.py", FIXED)]
    result, events, _ = run_in_process(root, replies, overrides=overrides)
    assert result.status == "verified" and (root / "main.py").read_text() == FIXED
    (switch,) = [e.data for e in events if e.kind == "agent.fallback"]
    assert switch["to"] == "agent:coder" and "CODUR_TEST_NO_SUCH_KEY" in switch["error"]
