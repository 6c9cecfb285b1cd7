"""The wheel carries configs/ and prompts/, and an installed copy (not the checkout) works."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from helpers import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    return next(out.glob("codur-*.whl"))


@pytest.mark.slow
def test_wheel_ships_every_prompt_and_config(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("prompts", "configs"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file():
                assert f"codur/_data/{folder}/{path.relative_to(ROOT / folder)}" in names
    assert any(n.endswith("entry_points.txt") for n in names)


@pytest.mark.slow
def test_installed_copy_finds_its_data_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(
        subprocess.check_output(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            text=True,
        ).strip()
    )
    # dependencies come from the test environment; codur itself only from the wheel
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    zipfile.ZipFile(wheel).extractall(site)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    # a PYTHONPATH pointing at a checkout (a worktree run) would shadow the wheel
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import codur, codur.resources as r;"
            "print(codur.__file__); print(r.default_config_file())",
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    assert probe.returncode == 0, probe.stderr
    module_file, config_file = probe.stdout.split()
    assert module_file.startswith(str(site)) and config_file.startswith(str(site))
    show = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "codur", "config", "show"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    assert show.returncode == 0, show.stderr
    assert "llm.default_profile" in show.stdout
