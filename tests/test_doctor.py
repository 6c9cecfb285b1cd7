"""`codur doctor`: the project's Python and its pytest, the check, the sandbox, the model
and its measured speed, the trust of ./codur.yaml; plain text and --json, through the
real CLI with a scripted model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli, scripted_profile, write_files

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

SLOW = 600
"""Seconds a doctor may take: it starts real interpreters (a shared machine can be slow)."""
PATIENT = ["-o", "tools.run_timeout_s=300"]
"""The probe's timeout for a machine that is busy with other work."""


def test_doctor_reports_each_part_and_times_the_model(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_files(root, {"main.py": "print(10)\n", "expected.txt": "10\n"})
    flags = scripted_profile(tmp_path, ["ok", "1 2 3 4 5"])
    done = run_cli(["doctor", "--json", *flags, *PATIENT], root, timeout=SLOW)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert list(report) == ["python", "check", "sandbox", "model", "trust"]
    python = report["python"]
    assert python["path"] == sys.executable and python["source"] == "VIRTUAL_ENV"
    import pytest

    assert python["pytest"] == pytest.__version__ and python["ok"] is True
    assert report["check"]["checks"] == ["output: python main.py, compared with expected.txt"]
    assert report["check"]["needs_pytest"] is False and report["check"]["ok"] is True
    assert report["sandbox"]["confine"] in ("landlock", "bubblewrap", "none")
    model = report["model"]
    assert (model["profile"], model["provider"]) == ("s", "scripted")
    assert model["generated_tokens"] == 5 and model["prompt_tokens"] > 0
    assert model["prompt_tokens_per_s"] > 0 and model["generation_tokens_per_s"] > 0
    assert report["trust"]["lines"] == ["codur.yaml: none in this folder"]


def test_doctor_in_plain_text_says_what_is_missing_and_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_files(root, {"calc.py": "X = 1\n", "tests/test_calc.py": "def test_x():\n    pass\n"})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    (root / "codur.yaml").write_text("runtime:\n  max_iterations: 3\n")
    broken = ["-o", "llm.profiles.s.provider=scripted", "-o", "llm.profiles.s.script=nope.yaml"]
    args = ["doctor", *broken, *PATIENT, "--profile", "s"]
    done = run_cli(args, root, {"VIRTUAL_ENV": ""}, timeout=SLOW)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    python = root / ".venv" / "bin" / "python"
    assert lines[0].startswith(f"python: {python} (Python 3.") and "no pytest" in lines[0]
    install = f"{python} -m ensurepip && {python} -m pip install pytest"  # --without-pip
    assert lines[1] == f"pytest: missing: install with {install}"
    assert "check: tests: pytest tests" in lines
    assert f"problem: the check needs pytest; install it with {install}" in lines
    sandbox = next(line for line in lines if line.startswith("sandbox: "))
    if not sandbox.startswith("sandbox: none"):  # what a run keeps from its programs
        assert sandbox.endswith(".venv") or ".venv stay writable: " in sandbox, sandbox
    assert "model: profile s (scripted, -)" in lines
    speed = next(line for line in lines if line.startswith("speed: "))
    assert speed.startswith("speed: not measured: the model cannot load (") and "nope" in speed
    trust = f"codur.yaml: not trusted ({root / 'codur.yaml'}); its protected keys are ignored"
    assert any(line.startswith(trust) for line in lines)
    assert run_cli(["trust"], root).returncode == 0
    args = ["doctor", "--no-model", *broken, *PATIENT, "--profile", "s"]
    again = run_cli(args, root, {"VIRTUAL_ENV": ""}, timeout=SLOW)
    assert "speed: not measured (--no-model)" in again.stdout.splitlines()
    assert f"codur.yaml: trusted ({root / 'codur.yaml'})" in again.stdout.splitlines()


def test_doctor_with_a_python_that_does_not_run_gives_no_pip_advice(tmp_path: Path) -> None:
    """tools.python naming a program that is no Python (`/bin/false`): doctor says it
    does not run and what to set, not `install with /bin/false -m pip install pytest`."""
    root = tmp_path / "proj"
    write_files(root, {"calc.py": "X = 1\n", "tests/test_calc.py": "def test_x():\n    pass\n"})
    args = ["doctor", "--no-model", "-o", "tools.python=/bin/false", *PATIENT]
    done = run_cli(args, root, timeout=SLOW)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("python: /bin/false (not runnable, no pytest;"), done.stdout
    assert lines[1] == "pytest: unknown: the interpreter does not run"
    assert "-m pip install" not in done.stdout
    assert (
        "problem: the check needs pytest, and the project's Python does not run: set "
        "tools.python to a working interpreter"
    ) in lines


def test_config_show_names_the_project_python(tmp_path: Path) -> None:
    done = run_cli(["config", "show"], tmp_path, timeout=SLOW)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"# project Python: {Path(sys.prefix) / 'bin' / 'python'} "
        f"($VIRTUAL_ENV={sys.prefix}; its pytest: codur doctor)"
    )


def test_doctor_on_a_server_that_counts_no_tokens_or_refuses_says_so(
    tmp_path: Path, openai_server
) -> None:
    """A probe's finds: a working server that sends no token counts was reported at
    `0.0 tokens/s`, and one answering 401 as a model that 'cannot load'."""
    from fake_servers import Fail, Reply

    root = tmp_path / "proj"
    write_files(root, {"calc.py": "X = 1\n"})
    flags = [f"llm.profiles.h.base_url={openai_server.base_url}", "llm.profiles.h.model=m"]
    flags += ["llm.profiles.h.provider=openai", "llm.profiles.h.max_retries=1"]
    args = ["doctor", *[part for f in flags for part in ("-o", f)], *PATIENT, "--profile", "h"]
    openai_server.default = Reply("ok", prompt_tokens=0, completion_tokens=0)
    lines = run_cli(args, root, timeout=SLOW).stdout.splitlines()
    speed = next(line for line in lines if line.startswith("speed: "))
    assert speed.startswith("speed: not measured: the server answers (first call ")
    assert speed.endswith(" s) but reports no token counts")
    openai_server.default = Fail(401, "bad key")
    lines = run_cli(args, root, timeout=SLOW).stdout.splitlines()
    speed = next(line for line in lines if line.startswith("speed: "))
    assert speed.startswith("speed: not measured: the model cannot be reached or refused")
