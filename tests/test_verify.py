"""Choosing what to verify from the folder, and judging real program runs."""

from __future__ import annotations

import sys
from pathlib import Path

from codur.config.schema import VerifyConfig
from codur.events import EventBus
from codur.verify.check import failure_message, verify
from codur.verify.target import find_target
from codur.workspace import Workspace


def make(tmp_path: Path, files: dict[str, str]) -> Workspace:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return Workspace(tmp_path)


def test_entry_point_choice(tmp_path: Path) -> None:
    ws = make(tmp_path, {"tool.py": "print(1)\n", "lib.py": "", "expected.txt": "1\n"})
    assert find_target(ws, ["tool.py"], VerifyConfig()).entry == "tool.py"  # referenced
    assert find_target(ws, [], VerifyConfig()) is None  # two scripts, no obvious one
    assert find_target(ws, [], VerifyConfig(entry_point="lib.py")).entry == "lib.py"
    (tmp_path / "app.py").write_text("print(1)\n")
    assert find_target(ws, [], VerifyConfig()).entry == "app.py"


def test_tests_without_expected_output_run_pytest(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n",
        },
    )
    target = find_target(ws, [], VerifyConfig())
    assert target is not None and target.command[1:3] == ["-m", "pytest"]
    verdict = verify(ws, target, VerifyConfig(), EventBus())
    assert not verdict.passed
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    assert verify(ws, target, VerifyConfig(), EventBus()).passed


def test_mismatch_message_has_the_seed_structure(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {"main.py": "import sys\nprint(1)\nprint(2)\nsys.exit('boom')\n", "expected.txt": "1\n3\n"},
    )
    target = find_target(ws, ["main.py"], VerifyConfig())
    events = []
    bus = EventBus()
    bus.subscribe(events.append)
    verdict = verify(ws, target, VerifyConfig(), bus)
    assert not verdict.passed and target.command[0] == sys.executable
    message = failure_message(ws, verdict)
    for part in (
        "Expected output:\n```\n1\n3\n```",
        "Actual output:\n```\n1\n2\n```",
        "Error:\n```\nboom",
        "exited with code 1",
        "Current implementation (main.py):",
    ):
        assert part in message
    long = make(
        tmp_path / "long",
        {
            "main.py": "for i in range(20):\n    print(i)\n",
            "expected.txt": "".join(f"{i}\n" for i in range(1, 21)),
        },
    )
    long_verdict = verify(long, find_target(long, [], VerifyConfig()), VerifyConfig(), EventBus())
    assert "Difference (- expected, + actual):" in failure_message(long, long_verdict)
    assert "Difference" not in message  # short outputs compare at a glance
    assert events[0].kind == "verify.run" and events[0].data["passed"] is False


def test_trailing_whitespace_and_crlf_do_not_matter(tmp_path: Path) -> None:
    ws = make(tmp_path, {"main.py": "print('a  ')\nprint('b')\n", "expected.txt": "a\r\nb\r\n\r\n"})
    target = find_target(ws, [], VerifyConfig())
    assert verify(ws, target, VerifyConfig(), EventBus()).passed


def test_a_referenced_library_module_is_not_the_entry_point(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "main.py": "from pkg.stock import f\nprint(f())\n",
            "pkg/stock.py": '"""Stock."""\nimport math\n\ndef f():\n    return 1\n',
            "expected.txt": "1\n",
        },
    )
    assert find_target(ws, ["pkg/stock.py"], VerifyConfig()).entry == "main.py"
    (tmp_path / "pkg" / "stock.py").write_text("def f():\n    return 1\n\nprint(f())\n")
    assert find_target(ws, ["pkg/stock.py"], VerifyConfig()).entry == "pkg/stock.py"


def test_tests_inside_a_virtualenv_do_not_count(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "lib.py": "x = 1\n",
            "other.py": "y = 2\n",
            ".venv/lib/site-packages/pkg/test_pkg.py": "def test_x():\n    pass\n",
        },
    )
    assert find_target(ws, [], VerifyConfig()) is None
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_lib.py").write_text("def test_y():\n    pass\n")
    assert find_target(ws, [], VerifyConfig()).entry == "pytest"
