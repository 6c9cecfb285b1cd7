"""Contained programs (codur/sandbox): real subprocesses, a scrubbed environment, every
descendant killed, and writes confined by Landlock or bubblewrap where available."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import debug_log, run_cli, scripted_profile

from codur.config import load_config
from codur.process import run_process
from codur.sandbox import Sandbox, readonly
from codur.sandbox.confine import Bubblewrap, Landlock, bubblewrap_unavailable, landlock_unavailable
from codur.sandbox.env import scrubbed
from codur.sandbox.readonly import EXIT_UNPROTECTED

pytestmark = pytest.mark.usefixtures("both_ways")  # forked, and through child.py

NO_LANDLOCK = landlock_unavailable()
NO_BWRAP, BWRAP = bubblewrap_unavailable(30)


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped by init counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_secrets_never_reach_a_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "gsk-live-0123456789")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("DB_PASSWORD", "hunter2hunter2")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/run/agent.sock")
    monkeypatch.setenv("PROVIDER_CRED_COPY", "gsk-live-0123456789")  # the key, renamed
    monkeypatch.setenv("CUSTOM_MODEL_VAR", "custom-0123456789")  # a profile's api_key_env
    monkeypatch.setenv("HARMLESS_SETTING", "kept")
    monkeypatch.setenv("NEEDED_TOKEN", "allowed-by-config")
    box = Sandbox(key_names=("CUSTOM_MODEL_VAR",), env_allow=("NEEDED_*",))
    dump = "import json, os; print(json.dumps(dict(os.environ)), file=open('env.json', 'w'))"
    dump += "; print(os.environ['NEEDED_TOKEN'])"
    shown = run_process(py(dump), tmp_path, 30, 1_000_000, sandbox=box).stdout
    assert shown == "***\n"  # kept for the program, but a secret in what Codur sees of it
    env = json.loads((tmp_path / "env.json").read_text())
    for gone in ("GROQ_API_KEY", "MY_SERVICE_TOKEN", "DB_PASSWORD", "SSH_AUTH_SOCK"):
        assert gone not in env
    assert "PROVIDER_CRED_COPY" not in env and "CUSTOM_MODEL_VAR" not in env
    assert env["HARMLESS_SETTING"] == "kept" and env["NEEDED_TOKEN"] == "allowed-by-config"
    assert "0123456789" not in json.dumps(env)
    assert Path(env["TMPDIR"]).name.startswith(f"codur-{os.getpid()}-program-")
    assert not Path(env["TMPDIR"]).exists()  # removed with the program


def test_scrub_names_what_it_removed() -> None:
    environ = {"A_KEY": "0123456789", "B": "x", "COPY": "0123456789", "PATH": "/bin"}
    kept, removed = scrubbed(environ)
    assert kept == {"B": "x", "PATH": "/bin"} and removed == ["A_KEY", "COPY"]


def test_every_profile_key_variable_is_removed_from_config(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={}, user_file=tmp_path / "none").config
    box = Sandbox.from_config(cfg)
    assert {"OPENAI_API_KEY", "GROQ_API_KEY"} <= set(box.key_names)


SPAWNER = """
import os, subprocess, sys, time
pids = []
for _ in range(50):
    pids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]).pid)
escaper = ("import os, sys, time\\n"
           "os.setsid()\\n"  # leaves the process group and the session
           "print(os.getpid(), flush=True)\\n"
           "time.sleep(120)")
esc = subprocess.Popen([sys.executable, "-c", escaper], stdout=subprocess.PIPE, text=True)
pids.append(int(esc.stdout.readline()))
open(sys.argv[1], "w").write(" ".join(map(str, pids)))
time.sleep(float(sys.argv[2]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("ends", ["normally", "on timeout"])
def test_every_descendant_is_killed(tmp_path: Path, ends: str) -> None:
    script = tmp_path / "spawner.py"
    script.write_text(SPAWNER)
    pids_file = tmp_path / "pids"
    lingers = "0" if ends == "normally" else "120"
    start = time.monotonic()
    result = run_process(
        [sys.executable, str(script), str(pids_file), lingers], tmp_path, 20, 100_000
    )
    assert result.timed_out == (ends == "on timeout"), result.stderr
    assert time.monotonic() - start < 30
    pids = [int(p) for p in pids_file.read_text().split()]
    assert len(pids) == 51
    deadline = time.monotonic() + 5
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)  # SIGKILL is sent; the kernel may take a moment
    assert not [p for p in pids if alive(p)]


PARENT = """
import sys
from pathlib import Path
from codur.process import run_process
from codur.sandbox import Sandbox
note = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(120)"
child = [sys.executable, "-c", note, sys.argv[1]]
box = Sandbox() if sys.argv[2] == "default" else Sandbox(die_with_parent=sys.argv[2] == "yes")
run_process(child, Path.cwd(), 120, 1000, sandbox=box)
"""


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("wanted", ["default", "yes", "no"])
def test_a_program_dies_with_a_killed_parent_unless_told_not_to(
    tmp_path: Path, wanted: str
) -> None:
    """A Codur killed with SIGKILL (or a Ray worker killed mid-run) leaves no program it
    started running (die_with_parent, the default); without it the program outlives the
    killed process that started it (its own session)."""
    pid_file = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(pid_file), wanted], cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not pid_file.is_file() or not pid_file.read_text():
        assert time.monotonic() < deadline and parent.poll() is None
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert alive(child) == (wanted == "no")
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


WRITER = """
import os, sys
results = {}
for name, path in [("own", "own.txt"), ("temp", os.path.join(os.environ["TMPDIR"], "t")),
                   ("outside", sys.argv[1]), ("devnull", "/dev/null")]:
    try:
        with open(path, "w") as fh:
            fh.write("x")
        results[name] = "ok"
    except OSError as exc:
        results[name] = type(exc).__name__
try:
    os.kill(int(sys.argv[2]), 0)
    results["signal"] = "ok"
except OSError as exc:
    results["signal"] = type(exc).__name__
try:  # a test suite's local server: bind, listen, connect on 127.0.0.1
    import socket
    server = socket.create_server(("127.0.0.1", 0))
    socket.create_connection(server.getsockname(), timeout=5).close()
    results["localhost"] = "ok"
except OSError as exc:
    results["localhost"] = type(exc).__name__
print(__import__("json").dumps(results))
"""


def confined_run(tmp_path: Path, confiner: object) -> dict[str, str]:
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside.txt"
    box = Sandbox(confiner=confiner)
    command = py(WRITER) + [str(outside), str(os.getpid())]
    result = run_process(command, work, 30, 100_000, sandbox=box)
    assert result.exit_code == 0, result.stderr
    assert (work / "own.txt").read_text() == "x"
    assert not outside.exists()
    return json.loads(result.stdout)


@pytest.mark.skipif(NO_LANDLOCK is not None, reason=f"Landlock: {NO_LANDLOCK}")
def test_landlock_confines_writes_and_signals(tmp_path: Path) -> None:
    results = confined_run(tmp_path, Landlock())
    assert results == {
        "own": "ok",
        "temp": "ok",
        "outside": "PermissionError",
        "devnull": "ok",
        "signal": "PermissionError",  # Codur is outside the program's domain
        "localhost": "ok",  # writes are confined, not the network
    }


@pytest.mark.skipif(NO_BWRAP is not None, reason=f"bubblewrap: {NO_BWRAP}")
def test_bubblewrap_confines_writes(tmp_path: Path) -> None:
    results = confined_run(tmp_path, Bubblewrap(BWRAP))
    assert results["own"] == results["temp"] == results["devnull"] == "ok"
    assert results["outside"] in ("PermissionError", "OSError")  # a read-only file system
    assert results["signal"] == "ProcessLookupError"  # Codur is not in its PID namespace
    assert results["localhost"] == "ok"


KEEPER = """
import json, os, sys
def attempt(action):
    try:
        action()
        return "ok"
    except OSError as exc:
        return type(exc).__name__
print(json.dumps({
    "own": attempt(lambda: open("own.txt", "w").write("x")),
    "hook": attempt(lambda: open(".git/hooks/pre-commit", "w").write("x")),
    "rename": attempt(lambda: os.rename(".git", "moved")),
    "file": attempt(lambda: open(sys.argv[1], "a").write("x")),
    "beside": attempt(lambda: open(sys.argv[1] + ".new", "w").write("x")),
}))
"""


@pytest.mark.parametrize("way", ["landlock", "landlock-user-ns", "bubblewrap"])
def test_read_only_paths_stay_read_only_in_a_writable_folder(
    tmp_path: Path, way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An external agent's sandbox: the workspace writable but its .git; a single file
    elsewhere writable in place, not the folder it is in. landlock-user-ns: as a process
    without CAP_SYS_ADMIN (a user namespace too), whoever runs the test."""
    if way == "landlock-user-ns":
        monkeypatch.setattr(readonly, "_has_sys_admin", lambda: False)
    why = NO_BWRAP if way == "bubblewrap" else NO_LANDLOCK
    if why is not None:
        pytest.skip(f"{way}: {why}")
    work, state = tmp_path / "work", tmp_path / "state"
    (work / ".git" / "hooks").mkdir(parents=True)
    state.mkdir()
    (state / "auth.json").write_text("{}")
    confiner = Bubblewrap(BWRAP) if way == "bubblewrap" else Landlock()
    box = Sandbox(confiner=confiner, writable=(state / "auth.json",), read_only=(work / ".git",))
    result = run_process(py(KEEPER) + [str(state / "auth.json")], work, 30, 100_000, sandbox=box)
    if result.exit_code == EXIT_UNPROTECTED:
        pytest.skip(f"{way}: no user namespaces here: {result.stderr.strip()}")
    assert result.exit_code == 0, result.stderr
    results = json.loads(result.stdout)
    assert results["own"] == results["file"] == "ok"
    assert {results["hook"], results["rename"], results["beside"]} <= {"PermissionError", "OSError"}
    assert not (work / ".git/hooks/pre-commit").exists() and (work / ".git").is_dir()
    assert (state / "auth.json").read_text() == "{}x" and not (state / "auth.json.new").exists()


def fake_kernel_without_landlock(tmp_path: Path) -> Path:
    """A landlockpy whose kernel has no Landlock (ABI 0), first on the import path."""
    shadow = tmp_path / "shadow"
    (shadow / "landlockpy").mkdir(parents=True)
    (shadow / "landlockpy" / "__init__.py").write_text("def abi_version():\n    return 0\n")
    return shadow


@pytest.mark.slow
def test_unconfined_programs_are_announced_once_with_verbose(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.py").write_text("print(10)\n")
    (work / "expected.txt").write_text("10\n")
    shadow = fake_kernel_without_landlock(tmp_path)
    env = {
        "PYTHONPATH": os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")]),
        "PATH": str(Path(sys.executable).parent),  # python, but no bwrap
    }
    result = run_cli(["fix @main.py", "--no-model", "-v"], cwd=work, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    line = (
        "programs are not confined: no Landlock: the kernel does not offer it (too old, or "
        "disabled at boot); no bubblewrap: bwrap is not installed (e.g. apt-get install "
        "bubblewrap)"
    )
    assert result.stdout.count(line) == 1, result.stdout
    quiet = run_cli(["fix @main.py", "--no-model"], cwd=work, env=env)
    assert "not confined" not in quiet.stdout + quiet.stderr


@pytest.mark.slow
def test_a_named_confinement_that_is_missing_stops_the_run(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text("print(1)\n")
    env = {"PATH": str(Path(sys.executable).parent)}
    result = run_cli(["fix @main.py", "-o", "sandbox.confine=bubblewrap"], tmp_path, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "codur: error: sandbox.confine is bubblewrap, which cannot be used here: no "
        "bubblewrap: bwrap is not installed (e.g. apt-get install bubblewrap)"
    ]


@pytest.mark.slow
@pytest.mark.skipif(NO_LANDLOCK is not None, reason=f"Landlock: {NO_LANDLOCK}")
def test_a_checked_program_cannot_write_outside_the_workspace(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside.txt"
    (work / "main.py").write_text(f"open({str(outside)!r}, 'w').write('pwned')\nprint(10)\n")
    (work / "expected.txt").write_text("10\n")
    flags = scripted_profile(tmp_path, [])
    result = run_cli([*flags, "--no-model", "fix @main.py", "-v"], cwd=work)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "programs confined by landlock" in result.stdout
    assert "PermissionError" in debug_log(work).read_text()
    assert not outside.exists()
