"""The embedded model loaded on a thread while the run opens (codur.models.local_early).

The fast tests need llama-cpp-python (a load that fails is real: a file that is no GGUF);
the one marked `embedded` loads the real model while the main thread prints.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import embedded_model_unavailable

from codur.config.schema import LLMProfile
from codur.errors import ModelUnreachable
from codur.models import local_llama, weights
from codur.models.local_early import load_early
from codur.models.weights import PackagedWeights, assembled


def test_an_early_load_that_failed_is_raised_by_the_next_load(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"this is no GGUF file\n" * 10)
    thread = load_early(LLMProfile(provider="local", model_file=str(bad), n_ctx=512))
    assert thread is not None
    thread.join()
    key = (str(bad), 512, os.cpu_count() or 1)
    with pytest.raises(ModelUnreachable, match="cannot load model"):
        local_llama.load_llama(*key, 0)
    assert key not in local_llama._FAILED  # kept for one load: the next one tries again
    with pytest.raises(ModelUnreachable, match="cannot load model"):
        local_llama.load_llama(*key, 0)


def test_only_a_local_model_that_is_ready_loads_early(tmp_path: Path) -> None:
    assert load_early(LLMProfile(provider="openai", model="m")) is None
    missing = LLMProfile(provider="local", model_file=str(tmp_path / "none.gguf"))
    assert load_early(missing) is None
    assert load_early(LLMProfile(provider="local", weights="no-such-weights")) is None
    real = tmp_path / "model.gguf"
    real.write_bytes(b"GGUF")
    assert load_early(LLMProfile(provider="local", model_file=str(real), load_early=False)) is None


def test_assembled_weights_are_those_stamped_as_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"GGUF tiny"
    digest = hashlib.sha256(data).hexdigest()
    spec = PackagedWeights("tiny.gguf", digest, len(data), "tiny-part-", 1, "1")
    monkeypatch.setitem(weights.PACKAGED, "tiny", spec)
    assert assembled("tiny", tmp_path) is None  # not joined yet
    (tmp_path / "tiny.gguf").write_bytes(data)
    assert assembled("tiny", tmp_path) is None  # joined, never checked: no hashing here
    (tmp_path / "tiny.gguf.sha256").write_text(f"{digest} {len(data)}\n", encoding="utf-8")
    assert assembled("tiny", tmp_path) == tmp_path / "tiny.gguf"
    (tmp_path / "tiny.gguf").write_bytes(data + b"!")
    assert assembled("tiny", tmp_path) is None  # the size changed since


@pytest.mark.embedded
def test_what_codur_prints_while_the_model_loads_early_is_kept() -> None:
    """llama-cpp-python points descriptors 1 and 2 at /dev/null while it loads a model;
    on a thread, that would swallow the main thread's output meanwhile."""
    if why := embedded_model_unavailable():
        pytest.skip(why)
    script = textwrap.dedent(
        """
        import os, time
        from codur.config.schema import LLMProfile
        from codur.models.local_early import load_early
        from codur.models.local_llama import load_llama
        from codur.models.weights import assembled
        thread = load_early(LLMProfile(provider="local", weights="qwen2.5-coder-1.5b",
                                       n_ctx=1024, n_threads=1))
        lines = 0
        while thread.is_alive() or lines < 5:
            os.write(1, f"out {lines}\\n".encode())
            os.write(2, f"err {lines}\\n".encode())
            lines += 1
            time.sleep(0.01)
        path = str(assembled("qwen2.5-coder-1.5b"))
        assert load_llama(path, 1024, 1, 0) is load_llama(path, 1024, 1, 0)
        print("lines", lines)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    lines = int(done.stdout.strip().splitlines()[-1].split()[1])
    assert lines >= 5
    assert done.stdout.splitlines()[:-1] == [f"out {n}" for n in range(lines)]
    assert done.stderr.splitlines() == [f"err {n}" for n in range(lines)]  # no llama.cpp log


@pytest.mark.embedded
def test_the_cli_exit_leaves_an_unused_early_load_behind_safely() -> None:
    """`leave` ends the process while llama.cpp may still be loading on another thread:
    no finaliser or destructor runs after `os._exit`, so the exit code is the one asked
    for (not a crash's), and close_all does not wait for that load."""
    if why := embedded_model_unavailable():
        pytest.skip(why)
    script = textwrap.dedent(
        """
        from codur.config.schema import LLMProfile
        from codur.exiting import leave
        from codur.models import local_llama
        from codur.models.local_early import load_early
        thread = load_early(LLMProfile(provider="local", weights="qwen2.5-coder-1.5b",
                                       n_ctx=1024, n_threads=1))
        assert thread is not None
        print("loading" if thread.is_alive() else "loaded", flush=True)
        leave(7)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 7, done.stderr
    assert done.stdout.strip() in ("loading", "loaded") and done.stderr == ""
