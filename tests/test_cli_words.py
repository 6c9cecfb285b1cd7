"""What a new user types first, through the real `codur` process: a mistyped command is
refused (not run as a task), -h, --version / -V, -m PROFILE, and /model in a chat."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import BUGGY, FIXED, ROOT, buggy_folder, debug_log, run_cli, whole_file
from terminal import WAIT_S

from codur.errors import ExitCode

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return buggy_folder(tmp_path / "w")


def profile(tmp_path: Path, name: str, responses: list) -> list[str]:
    """The `-o` flags that define scripted profile `name` (not choosing it)."""
    script = tmp_path / f"{name}-script.yaml"
    script.write_text(yaml.safe_dump(responses))
    return [
        "-o",
        f"llm.profiles.{name}.provider=scripted",
        "-o",
        f"llm.profiles.{name}.script={script}",
    ]


QUIET = ["-o", "repair.enabled=false", "-o", "sampling.candidates=0"]
"""One scripted reply per attempt, no model-free repair search."""


@pytest.mark.parametrize(
    ("args", "nearest"),
    [
        (["undoo"], "did you mean undo?"),
        (["tools"], "see codur --help"),
        (["trase", "--json"], "did you mean trace or trust?"),
        (["-C", ".", "profile"], "did you mean profiles?"),
        (["undoo", "last"], "did you mean undo?"),
    ],
)
def test_a_word_that_is_no_command_is_refused_not_run(
    work: Path, tmp_path: Path, args: list[str], nearest: str
) -> None:
    flags = [*profile(tmp_path, "s", [whole_file("main.py", FIXED)]), "-m", "s"]
    done = run_cli([*flags, *args], work)
    assert done.returncode == ExitCode.USAGE == 2, done.stderr
    word = next(a for a in args if not a.startswith("-") and a != ".")
    assert done.stderr.strip() == (
        f"codur: error: no command '{word}' ({nearest}); a task is more than one word "
        f'(codur "{word} ..."), a one-word task: codur run {word}'
    )
    assert done.stdout == ""
    assert not (work / ".codur").exists() and not debug_log(work).exists()
    assert (work / "main.py").read_text() == BUGGY  # no run, no model


def test_a_run_option_with_no_task_and_no_terminal_says_the_task_is_missing(
    work: Path,
) -> None:
    """`codur -m groq` with stdin not a terminal (no chat to open) said `No such option:
    -m` of an option the docs name (a docs probe)."""
    done = run_cli(["-m", "groq"], work)
    assert done.returncode == 2
    assert done.stderr.strip() == "codur: error: Missing argument 'task'. (see codur run --help)"


def test_a_task_typed_without_quotes_is_refused_with_the_command_to_type(work: Path) -> None:
    done = run_cli(["fix", "the", "bug", "in", "@main.py", "-v"], work)
    assert done.returncode == ExitCode.USAGE == 2, done.stderr
    assert done.stderr.strip() == (
        "codur: error: no command 'fix'; a task of several words goes in quotes: "
        'codur "fix the bug in @main.py"'
    )
    assert not (work / ".codur").exists()


@pytest.mark.parametrize("spelled", [["run", "refactor"], ["--", "refactor"], ["--", "undo"]])
def test_a_one_word_task_asked_for_runs(tmp_path: Path, spelled: list[str]) -> None:
    done = run_cli(["--json", "--no-model", *spelled], tmp_path)  # an empty folder
    assert done.returncode == 1, done.stderr  # unverified: no model, no repair
    start = json.loads(done.stdout.splitlines()[0])
    assert start["event"] == "run.start" and start["task"] == spelled[-1]


def test_h_is_help_everywhere(tmp_path: Path) -> None:
    for args in ([], ["run"], ["undo"], ["memory"], ["memory", "show"], ["config"]):
        short, long = run_cli([*args, "-h"], tmp_path), run_cli([*args, "--help"], tmp_path)
        assert short.returncode == long.returncode == 0, short.stderr
        assert short.stdout == long.stdout and "Usage:" in short.stdout
        assert "-h, --help" in short.stdout


def test_version_flags_print_what_codur_version_prints(tmp_path: Path) -> None:
    said = run_cli(["version"], tmp_path)
    assert said.returncode == 0 and said.stdout.startswith("codur ")
    for flag in ("--version", "-V"):
        done = run_cli([flag], tmp_path)
        assert done.returncode == 0 and done.stdout == said.stdout, done.stderr


def test_m_picks_the_model_profile_of_one_run(work: Path, tmp_path: Path) -> None:
    flags = [*profile(tmp_path, "a", []), *profile(tmp_path, "b", [whole_file("main.py", FIXED)])]
    for flag in ("-m", "--model"):
        (work / "main.py").write_text(BUGGY)
        done = run_cli([*flags, *QUIET, flag, "b", "fix @main.py"], work)
        assert done.returncode == 0, done.stderr  # b's reply fixed it (a has none)
        assert (work / "main.py").read_text() == FIXED
    unknown = run_cli([*flags, "-m", "zz", "fix @main.py"], work)
    assert unknown.returncode == 2 and "unknown LLM profile 'zz'" in unknown.stderr


def test_model_in_chat_shows_and_switches_the_profile(work: Path, tmp_path: Path) -> None:
    flags = [*profile(tmp_path, "a", []), *profile(tmp_path, "b", [whole_file("main.py", FIXED)])]
    done = subprocess.run(
        [sys.executable, "-m", "codur", "chat", *flags, *QUIET, "-m", "a"],
        input="/model\n/model zz\n/model b\n/model\nfix @main.py\n/exit\n",
        capture_output=True,
        text=True,
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stderr
    assert "model profile a: scripted" in done.stdout and "others: b" in done.stdout
    assert "unknown LLM profile 'zz'" in done.stderr  # the session went on, still on a
    assert "model profile now b: scripted" in done.stdout
    assert "model profile b: scripted" in done.stdout and "others: a" in done.stdout
    assert (work / "main.py").read_text() == FIXED  # b's reply: the task ran on b


def test_codex_approval_spellings_map_to_codur_modes(work: Path) -> None:
    """-a/--ask-for-approval untrusted|on-request|never are suggest|auto-edit|full-auto."""
    for spelled, mode in (
        ("untrusted", "suggest"),
        ("on-request", "auto-edit"),
        ("never", "full-auto"),
    ):
        shown = run_cli(["-o", f"approval.mode={spelled}", "config", "show", "--json"], work)
        assert json.loads(shown.stdout)["config"]["approval"]["mode"] == mode, shown.stderr
    asked = run_cli(["--ask-for-approval", "on-request", "delete main.py"], work)
    assert asked.returncode == ExitCode.APPROVAL_NEEDED, asked.stderr  # no terminal to ask
    assert "approval mode auto-edit" in asked.stdout and (work / "main.py").exists()
    contradicts = run_cli(["--yes", "-a", "untrusted", "delete main.py"], work)
    assert contradicts.returncode == 2 and "contradicts" in contradicts.stderr
    allowed = run_cli(["-a", "never", "delete main.py"], work)
    assert allowed.returncode == 0, allowed.stderr
    assert not (work / "main.py").exists()
    bad = run_cli(["-a", "sometimes", "delete expected.txt"], work)
    assert bad.returncode == 2 and (work / "expected.txt").exists()
    assert bad.stderr.strip().endswith(  # Codex's spellings listed too (a docs probe)
        "one of suggest, auto-edit, full-auto, untrusted, on-request, never expected "
        "(got 'sometimes')"
    )


def test_sandbox_flag_takes_codur_and_codex_spellings(work: Path) -> None:
    """-s/--sandbox sets sandbox.confine: Codex's danger-full-access is off (the run's
    `sandbox` event says the programs ran unconfined); read-only is refused in one line."""
    for spelled, confine in (("workspace-write", "auto"), ("danger-full-access", "off")):
        shown = run_cli(["-o", f"sandbox.confine={spelled}", "config", "show", "--json"], work)
        assert json.loads(shown.stdout)["config"]["sandbox"]["confine"] == confine, shown.stderr
    done = run_cli(["-s", "danger-full-access", "-a", "never", "--json", "run `python3 -V`"], work)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    box = next(e for e in events if e["event"] == "sandbox")
    assert box["confine"] == "none" and "off" in box["unconfined"]
    refused = run_cli(["--sandbox", "read-only", "fix @main.py"], work)
    assert refused.returncode == 2 and "codur ask" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_every_json_event_carries_the_schema_version(tmp_path: Path) -> None:
    done = run_cli(["--json", "--no-model", "run", "refactor"], tmp_path)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["event"] == "run.start" and lines[-1]["event"] == "run.end"
    assert {line["schema"] for line in lines} == {1}
    documented = (ROOT / "docs" / "events.md").read_text()
    assert "| `schema` |" in documented
    assert all(f"`{e}`" in documented for e in ("run.start", "run.end", "node.end"))


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--no-model", "--max-llm-calls", "-5", "fix @main.py"], "--max-llm-calls"),  # ran
        (["challenges", "run", "--timeout", "-1"], "--timeout"),  # every run "FAIL timeout"
        (["challenges", "run", "--jobs", "0"], "--jobs"),
        (["challenges", "run", "--attempts", "0"], "--attempts"),
        (["challenges", "run", "--seeds", "0"], "--seeds"),
    ],
)
def test_a_number_out_of_its_range_is_a_usage_error(
    tmp_path: Path, args: list[str], option: str
) -> None:
    done = run_cli(args, cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"codur: error: Invalid value for '{option}'"), line
