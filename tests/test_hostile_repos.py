"""Repositories that are hostile to a coding agent (found by probing Codur as a hostile
user): an expected-output file that is a symlink out of the folder, a dangling one, a
symlink loop or a FIFO; git's own folder; a YAML alias bomb as codur.yaml; CRLF files.
Real `codur` processes and real files; only the model is scripted."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from faults import codur, ended, records, workdir
from helpers import BUGGY, FIXED, debug_log, scripted_profile, tool_calls, whole_file

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

SECRET = "outside-secret-7f3a\n"


def _odd_expected(work: Path, kind: str, outside: Path) -> None:
    """Make work/expected.txt a file of `kind` that is no regular file inside `work`."""
    (work / "expected.txt").unlink()
    if kind == "outside":
        outside.write_text(SECRET)
        (work / "expected.txt").symlink_to(outside)
    elif kind == "dangling":
        (work / "expected.txt").symlink_to(work / "nowhere.txt")
    elif kind == "loop":
        (work / "expected.txt").symlink_to(work / "expected.txt")
    else:
        os.mkfifo(work / "expected.txt")


@pytest.mark.parametrize("kind", ["outside", "dangling", "loop", "fifo"])
def test_an_expected_file_that_is_no_file_of_the_folder_is_never_read(
    tmp_path: Path, kind: str
) -> None:
    work = workdir(tmp_path)
    _odd_expected(work, kind, tmp_path / "secret.txt")
    result = codur(["--no-model", "fix @main.py"], work, timeout=120)
    # no output check (the file is not the folder's): unverified, not an error or a hang
    end = ended(result, work, 1)
    assert end["status"] != "error"
    assert SECRET.strip() not in debug_log(work).read_text()
    if kind == "outside":
        assert (tmp_path / "secret.txt").read_text() == SECRET


@pytest.mark.parametrize(
    ("key", "value"),
    [("entry_point", "../x.py"), ("expected_file", "../secret.txt"), ("entry_point", "/x.py")],
)
def test_a_check_path_out_of_the_folder_is_refused_in_one_line(
    tmp_path: Path, key: str, value: str
) -> None:
    """A folder's codur.yaml naming a program or an expected output out of the folder:
    the check could never use it, so the run is refused before it starts (exit 2, the
    key and its line named), not ended `unverified` for a reason only the trace shows."""
    work = workdir(tmp_path)
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "x.py").write_text("print('outside')\n")
    (work / "codur.yaml").write_text(f"verify:\n  {key}: {value}\n")
    result = codur(["--no-model", "fix @main.py"], work, timeout=120)
    assert result.returncode == 2, result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.startswith("codur: error:")]
    assert len(lines) == 1 and f"codur.yaml:2: verify.{key} '{value}'" in lines[0], lines
    assert "outside the workspace" in lines[0]
    assert (work / "main.py").read_text() == BUGGY


TOKEN = "ghp_probe3token0000"


def test_git_s_own_folder_is_never_read_or_written_by_tools_or_edits(tmp_path: Path) -> None:
    """A hook or a config written in .git runs later, outside any sandbox (and undo cannot
    put .git back); a remote URL there may hold a token."""
    work = workdir(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    url = f"https://u:{TOKEN}@example.com/r.git"
    subprocess.run(["git", "remote", "add", "origin", url], cwd=work, check=True)
    config = (work / ".git/config").read_bytes()
    hook = "#!/bin/sh\ntouch pwned\n"
    calls = tool_calls(
        ("write_file", {"path": ".git/hooks/pre-commit", "content": hook}),
        ("read_file", {"path": ".git/config"}),
        ("read_file", {"path": "./sub/../.git/config"}),
    )
    replies = [
        calls,
        whole_file(".git/hooks/post-checkout.py", "print('pwned')\n"),
        whole_file("main.py", FIXED),
    ]
    flags = [*scripted_profile(tmp_path, replies), "-o", "runtime.max_iterations=3"]
    result = codur([*flags, "--yes", "fix @main.py"], work, timeout=120)
    ended(result, work, 0)
    assert not (work / ".git/hooks/pre-commit").exists()
    assert not (work / ".git/hooks/post-checkout.py").exists()
    assert (work / ".git/config").read_bytes() == config
    assert TOKEN not in debug_log(work).read_text()
    outputs = [r["output"] for r in records(work) if r["event"] == "tool.result"]
    assert sum("git's own folder" in o for o in outputs) == 3, outputs


def laughs(depth: int) -> str:
    """A billion laughs of mappings: nine keys a level, each an alias of the level below."""
    lines = ["a0: &a0 {" + ", ".join(f"k{j}: lol" for j in range(9)) + "}"]
    for i in range(1, depth + 1):
        lines.append(f"a{i}: &a{i} {{" + ", ".join(f"k{j}: *a{i - 1}" for j in range(9)) + "}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (laughs(8), "expands to more than 10,000 values"),
        ("llm: &x {profiles: *x}\n", "an alias refers to a node that holds it"),
        ("runtime: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deep"),
    ],
)
def test_a_yaml_bomb_as_codur_yaml_is_a_config_error(
    tmp_path: Path, text: str, problem: str
) -> None:
    work = workdir(tmp_path)
    (work / "codur.yaml").write_text(text)
    result = codur(["config", "show"], work, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "codur.yaml" in lines[0] and problem in lines[0], result.stderr


def test_the_diff_of_a_crlf_file_shows_only_the_changed_line(tmp_path: Path) -> None:
    work = workdir(tmp_path)
    (work / "main.py").write_bytes(BUGGY.replace("\n", "\r\n").encode())
    flags = scripted_profile(tmp_path, [whole_file("main.py", FIXED)])
    result = codur([*flags, "--yes", "fix @main.py"], work, timeout=120)
    end = ended(result, work, 0)
    assert (work / "main.py").read_bytes() == FIXED.replace("\n", "\r\n").encode()
    lines = end["diff"].split("\n")
    changed = [s for s in lines if s.startswith(("+", "-")) and s[:3] not in ("---", "+++")]
    assert changed == [
        "-    for i in range(len(xs) - 1):\r",
        "+    for i in range(len(xs)):\r",
    ], end["diff"]
