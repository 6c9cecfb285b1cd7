"""Choosing what to verify from the folder, and judging real program runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import write_files

from codur.config.schema import VerifyConfig
from codur.events import Event, EventBus
from codur.tools.context import ToolContext
from codur.verify.agent import choose_checks, verify_task
from codur.verify.plan import OutputCheck, TestCheck, VerificationPlan
from codur.workspace import Workspace


def make(tmp_path: Path, files: dict[str, str]) -> Workspace:
    write_files(tmp_path, files)
    return Workspace(tmp_path)


def plan_for(
    ws: Workspace, refs: list[str] = (), cfg: VerifyConfig | None = None
) -> VerificationPlan:
    return choose_checks(ToolContext(ws), cfg or VerifyConfig(), list(refs), [])


def entries(plan: VerificationPlan) -> list[str]:
    return [c.entry for c in plan.checks if isinstance(c, OutputCheck)]


def test_entry_point_choice(tmp_path: Path) -> None:
    ws = make(tmp_path, {"tool.py": "print(1)\n", "lib.py": "", "expected.txt": "1\n"})
    assert entries(plan_for(ws, ["tool.py"])) == ["tool.py"]  # referenced
    assert plan_for(ws).checks == []  # two scripts, no obvious one
    assert entries(plan_for(ws, cfg=VerifyConfig(entry_point="lib.py"))) == ["lib.py"]
    (tmp_path / "app.py").write_text("print(1)\n")
    assert entries(plan_for(ws)) == ["app.py"]


def test_verification_and_the_discovery_tool_share_the_conventional_names(
    tmp_path: Path,
) -> None:
    """One list: a conventional name the discovery tool reports (cli.py) is the program
    verification runs, before a script that only has a `__main__` guard."""
    from codur.tools.python import entry_points

    guarded = "if __name__ == '__main__':\n    print(2)\n"
    ws = make(tmp_path, {"cli.py": "print(1)\n", "aaa.py": guarded, "expected.txt": "1\n"})
    assert [str(p) for p in entry_points(ToolContext(ws), tmp_path)] == [
        "aaa.py (__main__ guard)",
        "cli.py (conventional name)",
    ]
    assert entries(plan_for(ws)) == ["cli.py"]


def test_python_sees_gitignored_files_that_the_tools_walk_skips(tmp_path: Path) -> None:
    """Verification and the oracle walk the folder as Python does (project_tree): a
    gitignored module still imports; the tools list what git sees (codur.tools.walk)."""
    from codur.scope.oracle import all_files
    from codur.tools.code import python_files as indexed
    from codur.verify.target import python_files

    files = {
        ".gitignore": "gen/\n",
        "gen/made.py": "X = 1\n",
        "b.py": "",
        "a/z.py": "",
        ".hidden/h.py": "",
        "venv/lib.py": "",
        "a/data.txt": "1\n",
    }
    ws = make(tmp_path, files)
    assert list(python_files(tmp_path)) == ["b.py", "a/z.py", "gen/made.py"]
    assert all_files(tmp_path, set()) == [
        ".gitignore",
        "b.py",
        "a/data.txt",
        "a/z.py",
        "gen/made.py",
    ]
    assert [rel for rel, _ in indexed(ToolContext(ws))] == [".hidden/h.py", "a/z.py", "b.py"]


@pytest.mark.slow
def test_tests_without_expected_output_run_pytest(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n",
        },
    )
    assert [type(c) for c in plan_for(ws).checks] == [TestCheck]
    assert not verify_task(ToolContext(ws), VerifyConfig(), [], []).passed
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    assert verify_task(ToolContext(ws), VerifyConfig(), [], []).passed


def run_output(ws: Workspace, events: list[Event] | None = None):  # noqa: ANN201
    bus = EventBus()
    if events is not None:
        bus.subscribe(events.append)
    return OutputCheck(entry="main.py", expected_file="expected.txt").run(ToolContext(ws, bus=bus))


def test_mismatch_message_has_the_seed_structure(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "main.py": "import sys\nprint(1)\nprint(2)\nsys.exit('boom')\n",
            "expected.txt": "1\n2\n3\n",  # its lines match so far: it runs to its end
        },
    )
    events: list[Event] = []
    evidence = run_output(ws, events)
    assert not evidence.passed
    for part in (
        "Expected output:\n```\n1\n2\n3\n```",
        "Actual output:\n```\n1\n2\n```",
        "Error:\n```\nboom",
        "exited with code 1",
    ):
        assert part in evidence.feedback
    long = make(
        tmp_path / "long",
        {
            "main.py": "for i in range(20):\n    print(i)\n",
            "expected.txt": "".join(f"{i}\n" for i in range(1, 21)),
        },
    )
    assert "Difference (- expected, + actual):" in run_output(long).feedback
    assert "Difference" not in evidence.feedback  # short outputs compare at a glance
    runs = [e.data for e in events if e.kind == "verify.run"]
    assert len(runs) == 1 and runs[0]["passed"] is False


def test_trailing_whitespace_and_crlf_do_not_matter(tmp_path: Path) -> None:
    ws = make(tmp_path, {"main.py": "print('a  ')\nprint('b')\n", "expected.txt": "a\r\nb\r\n\r\n"})
    assert run_output(ws).passed


def test_a_referenced_library_module_is_not_the_entry_point(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "main.py": "from pkg.stock import f\nprint(f())\n",
            "pkg/stock.py": '"""Stock."""\nimport math\n\ndef f():\n    return 1\n',
            "expected.txt": "1\n",
        },
    )
    assert entries(plan_for(ws, ["pkg/stock.py"])) == ["main.py"]
    (tmp_path / "pkg" / "stock.py").write_text("def f():\n    return 1\n\nprint(f())\n")
    assert entries(plan_for(ws, ["pkg/stock.py"])) == ["pkg/stock.py"]


def test_tests_inside_a_virtualenv_do_not_count(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "lib.py": "x = 1\n",
            "other.py": "y = 2\n",
            ".venv/lib/site-packages/pkg/test_pkg.py": "def test_x():\n    pass\n",
        },
    )
    assert plan_for(ws).checks == []
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_lib.py").write_text("def test_y():\n    pass\n")
    assert plan_for(ws).checks == [TestCheck(paths=["tests"], budget_s=300.0)]


def test_the_same_failure_reads_the_same_whatever_the_run_s_addresses_and_timing() -> None:
    """pytest prints reprs with memory addresses and its timing: two runs of the same
    failing test give the model the same text (one prompt, one cached prefix) and the
    stuck detection the same fingerprint; another failure stays another."""
    from codur.verify.evidence import Evidence
    from codur.verify.plan import VerificationPlan
    from codur.verify.result import VerificationResult

    def failing(address: str, seconds: str, value: str = "None") -> VerificationResult:
        text = (
            f"E  + where {value} = <function test_doc.<locals>.f at {address}>.__doc__\n"
            f"1 failed, 179 passed in {seconds}"
        )
        evidence = Evidence(
            check="tests", passed=False, command="pytest", summary="1 failed",
            feedback=text, fingerprint=text,
        )  # fmt: skip
        plan = VerificationPlan(strategy="tests", checks=[], reasoning="")
        return VerificationResult(passed=False, strategy="tests", evidence=[evidence], plan=plan)

    one, two = failing("0x7efc7244fb00", "0.45s"), failing("0x7f4af656bb00", "0.49s")
    assert one.feedback == two.feedback and one.fingerprint == two.fingerprint
    assert "<function test_doc.<locals>.f at 0x...>" in one.feedback
    assert "1 failed, 179 passed in ...s" in one.feedback
    other = failing("0x7efc7244fb00", "0.45s", value="'x'")
    assert other.fingerprint != one.fingerprint
    slow = failing("0x7efc7244fb00", "65.43s (0:01:05)")
    assert slow.feedback == one.feedback  # the minutes pytest adds past 60 s go too
    printed = failing("0x7efc7244fb00", "0.45s", value="0xdeadbeef12")  # hex a program prints
    assert "0xdeadbeef12" in printed.feedback and printed.fingerprint != one.fingerprint


@pytest.mark.slow
def test_two_real_runs_of_the_same_failing_test_read_the_same(tmp_path: Path) -> None:
    """The real pytest, twice: its report shows a local function's repr (a new address in
    each process) and its timing; the model and the stuck detection see one failure."""
    ws = make(
        tmp_path,
        {
            "lib.py": "def doc_of(f):\n    return None\n",
            "test_lib.py": (
                "from lib import doc_of\n\n\ndef test_doc():\n"
                "    def f():\n        'A docstring'\n\n    assert doc_of(f) == f.__doc__\n"
            ),
        },
    )
    first, second = (verify_task(ToolContext(ws), VerifyConfig(), [], []) for _ in range(2))
    assert not first.passed and not second.passed
    assert "at 0x...>" in first.feedback and " in ...s" in first.feedback
    assert first.feedback == second.feedback and first.fingerprint == second.fingerprint
