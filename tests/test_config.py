"""Config layering, provenance and every bad-input path (real files, real CLI process)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

from codur.config import load_config
from codur.config.show import render
from codur.config.trust import trust
from codur.errors import ConfigError

BAD_PROFILE = "agents:\n  configs:\n    coder:\n      profile: nope\n"
BAD_PROFILE_MESSAGE = (
    "codur.yaml:4: key 'agents.configs.coder.profile': unknown LLM profile 'nope' "
    "(configured: local, local-small, openai, groq, ollama)"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_builtin_defaults_and_their_origin(tmp_path: Path) -> None:
    loaded = load_config(tmp_path, environ={}, user_file=tmp_path / "none.yaml")
    cfg = loaded.config
    assert cfg.runtime.max_iterations == 10
    assert cfg.runtime.max_tool_iterations == 5
    assert cfg.llm.default_profile == "local"
    assert cfg.llm.profiles["local"].provider == "local"
    assert loaded.origin(("runtime", "max_iterations")).startswith("built-in configs/default.yaml:")
    assert loaded.origin(("verify", "entry_point")) == "built-in default"


def test_each_layer_overrides_the_one_before(tmp_path: Path) -> None:
    user = write(
        tmp_path / "user.yaml", "runtime:\n  max_iterations: 2\n  max_tool_iterations: 7\n"
    )
    # lower than the user's: an untrusted project file may tighten a limit, not loosen it
    write(tmp_path / "codur.yaml", "runtime:\n  max_iterations: 1\n")
    extra = write(tmp_path / "extra.yaml", "runtime:\n  max_iterations: 4\n")
    env = {"CODUR_RUNTIME__MAX_ITERATIONS": "5"}

    def effective(**kw: object) -> tuple[int, str]:
        loaded = load_config(tmp_path, user_file=user, **kw)  # type: ignore[arg-type]
        key = ("runtime", "max_iterations")
        return loaded.config.runtime.max_iterations, loaded.origin(key)

    assert effective(environ={}) == (1, f"{tmp_path / 'codur.yaml'}:2")
    assert effective(environ={}, config_file=extra) == (4, f"{extra}:2")
    assert effective(environ=env, config_file=extra)[0] == 5
    assert effective(environ=env, config_file=extra, overrides=["runtime.max_iterations=6"]) == (
        6,
        "-o runtime.max_iterations",
    )
    flags = {"--max-iterations": ("runtime.max_iterations", 7)}
    assert effective(environ=env, overrides=["runtime.max_iterations=6"], flags=flags) == (
        7,
        "--max-iterations",
    )
    # a key set only in the user file survives the layers above it
    loaded = load_config(tmp_path, user_file=user, environ=env)
    assert loaded.config.runtime.max_tool_iterations == 7
    assert loaded.origin(("runtime", "max_tool_iterations")) == f"{user}:3"


def test_env_values_are_typed_and_profiles_can_be_added(tmp_path: Path) -> None:
    env = {
        "CODUR_RUNTIME__DETECT_TOOL_CALLS_FROM_TEXT": "false",
        "CODUR_LLM__PROFILES__MINE__PROVIDER": "openai",
        "CODUR_LLM__PROFILES__MINE__BASE_URL": "http://127.0.0.1:9/v1",
    }
    cfg = load_config(tmp_path, environ=env, user_file=tmp_path / "x").config
    assert cfg.runtime.detect_tool_calls_from_text is False
    assert cfg.profile("llm:mine")[1].base_url == "http://127.0.0.1:9/v1"
    with pytest.raises(ConfigError, match="unknown LLM profile 'nope'"):
        cfg.profile("nope")


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (
            {"codur.yaml": "runtime:\n  max_iterations: 3\n  bogus: 1\n"},
            r"codur.yaml:3: key 'runtime.bogus': unknown key",
        ),
        (
            {"codur.yaml": "runtime:\n  max_iterations: lots\n"},
            r"codur.yaml:2: key 'runtime.max_iterations': Input should be a valid integer",
        ),
        ({"codur.yaml": "runtime:\n  max_iterations: [1\n"}, r"codur.yaml:3: invalid YAML"),
        ({"codur.yaml": "- just\n- a list\n"}, r"codur.yaml:1: config must be a mapping"),
        (
            {"codur.yaml": "llm:\n  profiles:\n    x:\n      model: m\n"},
            r"codur.yaml:3: key 'llm.profiles.x.provider': Field required",
        ),
        (
            {"codur.yaml": "runtime:\n  max_iterations: 0\n"},
            r"key 'runtime.max_iterations': Input should be greater than 0",
        ),
    ],
)
def test_bad_project_file(tmp_path: Path, setup: dict[str, str], expected: str) -> None:
    for name, text in setup.items():
        write(tmp_path / name, text)
    trust(tmp_path / "codur.yaml")  # trusted: what is wrong with it counts, not trust
    with pytest.raises(ConfigError, match=expected):
        load_config(tmp_path, environ={}, user_file=tmp_path / "none")


def test_bad_env_flag_and_file_inputs(tmp_path: Path) -> None:
    none = tmp_path / "none"
    with pytest.raises(
        ConfigError, match="environment variable CODUR_RUNTIME__MAX_ITERATIONS: key"
    ):
        load_config(tmp_path, environ={"CODUR_RUNTIME__MAX_ITERATIONS": "x"}, user_file=none)
    # a CODUR_* variable that names no setting (CODUR_VENV is .ci/bootstrap.py's) is a
    # warning, not an error
    env = {"CODUR_VENV": "/x/.venv", "CODUR_RUNTIME__BOGUS": "1"}
    loaded = load_config(tmp_path, environ=env, user_file=none)
    assert loaded.warnings == [
        "environment variable CODUR_RUNTIME__BOGUS is not a Codur setting (ignored)",
        "environment variable CODUR_VENV is not a Codur setting (ignored)",
    ]
    with pytest.raises(ConfigError, match="-o runtime.max_iterations=3x|expected key.path=value"):
        load_config(tmp_path, environ={}, overrides=["runtime.max_iterations"], user_file=none)
    # a whole section set to one value is refused at once: a later flag setting a key
    # under it (--max-llm-calls) would otherwise replace it silently
    flags = {"--max-llm-calls": ("runtime.max_llm_calls", 3)}
    with pytest.raises(ConfigError, match="-o runtime=5: runtime is a section of settings"):
        load_config(tmp_path, environ={}, overrides=["runtime=5"], user_file=none, flags=flags)
    profile = "-o llm.profiles.local=x: llm.profiles.local is a section"
    with pytest.raises(ConfigError, match=profile):
        load_config(tmp_path, environ={}, overrides=["llm.profiles.local=x"], user_file=none)
    with pytest.raises(ConfigError, match="CODUR_RUNTIME: runtime is a section"):
        load_config(tmp_path, environ={"CODUR_RUNTIME": "5"}, user_file=none, flags=flags)
    section = ["runtime={max_iterations: 4}", "llm.profiles.mine={provider: ollama, model: m}"]
    loaded = load_config(tmp_path, environ={}, overrides=section, user_file=none)
    assert loaded.config.runtime.max_iterations == 4
    assert loaded.config.llm.profiles["mine"].provider == "ollama"
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(tmp_path, config_file=tmp_path / "missing.yaml", environ={}, user_file=none)
    unreadable = write(tmp_path / "bin.yaml", "")
    unreadable.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError, match="bin.yaml"):
        load_config(tmp_path, config_file=unreadable, environ={}, user_file=none)


def test_render_names_every_source(tmp_path: Path) -> None:
    write(tmp_path / "codur.yaml", "planning:\n  max_retry_attempts: 1\n")
    loaded = load_config(
        tmp_path, environ={}, overrides=["log.path=x.log"], user_file=tmp_path / "n"
    )
    text = render(loaded)
    assert "planning.max_retry_attempts: 1" in text
    assert f"# {tmp_path / 'codur.yaml'}:2" in text
    assert "# -o log.path" in text
    assert "# built-in configs/default.yaml:" in text


@pytest.mark.parametrize(
    ("args", "files", "message"),
    [
        (
            ["config", "show"],
            {"codur.yaml": "runtime: {nope: 1}\n"},
            "codur.yaml:1: key 'runtime.nope': unknown key",
        ),
        (
            ["config", "show", "--config", "missing.yaml"],
            {},
            "missing.yaml: cannot read config file",
        ),
        (
            ["config", "show", "-o", "runtime.max_iterations=many"],
            {},
            "-o runtime.max_iterations: key",
        ),
        (["fix it", "--profile", "nope"], {}, "unknown LLM profile 'nope'"),
        # a profile is the user's choice (an untrusted codur.yaml's is ignored): --config
        (
            ["config", "show", "--config", "c/codur.yaml"],
            {"c/codur.yaml": BAD_PROFILE},
            BAD_PROFILE_MESSAGE,
        ),
        (
            ["--no-model", "--config", "c/codur.yaml", "fix @main.py"],
            {"c/codur.yaml": BAD_PROFILE, "main.py": "print(1)\n"},
            BAD_PROFILE_MESSAGE,
        ),
        (["fix it", "-C", "no/such/dir"], {}, "-C no/such/dir: not a folder"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    result = run_cli(args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_config_show_lists_sources(tmp_path: Path) -> None:
    write(tmp_path / "codur.yaml", "runtime:\n  max_iterations: 4\n")
    result = run_cli(
        ["config", "show", "-o", "verify.timeout_s=9"],
        cwd=tmp_path,
        env={"CODUR_PLANNING__MAX_RETRY_ATTEMPTS": "2"},
    )
    assert result.returncode == 0, result.stderr
    lines = {line.split(":")[0]: line for line in result.stdout.splitlines()}
    assert "codur.yaml:2" in lines["runtime.max_iterations"]
    assert "# -o verify.timeout_s" in lines["verify.timeout_s"]
    assert (
        "environment variable CODUR_PLANNING__MAX_RETRY_ATTEMPTS"
        in lines["planning.max_retry_attempts"]
    )


@pytest.mark.parametrize("kind", ["folder", "broken link"])
def test_a_codur_yaml_that_is_no_file_is_said_not_passed_over(tmp_path: Path, kind: str) -> None:
    """A folder named codur.yaml, or a link to nothing, was left out in silence."""
    project = tmp_path / "codur.yaml"
    if kind == "folder":
        project.mkdir()
    else:
        project.symlink_to(tmp_path / "gone.yaml")
    none = tmp_path / "no-user.yaml"
    with pytest.raises(ConfigError, match="codur.yaml: cannot read config file"):
        load_config(tmp_path, environ={}, user_file=none)
    loaded = load_config(tmp_path, environ={}, user_file=none, recovery=True)  # undo, diff
    assert any("left out for this command" in w for w in loaded.warnings)
