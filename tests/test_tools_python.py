"""Python tools with real interpreters: running programs and tests, entry points, AST edits."""

from __future__ import annotations

import pytest

from codur.config.schema import ToolsConfig
from codur.tools.python import parse_pytest


def test_run_python_file_output_args_stdin_and_exit_code(call, tool_ws) -> None:
    (tool_ws / "prog.py").write_text(
        "import sys\nprint('args', sys.argv[1:])\nprint(input().upper())\n"
        "print('warn', file=sys.stderr)\nsys.exit(4)\n"
    )
    result = call("run_python_file", path="prog.py", arguments=["-x", "1"], stdin="abc\n")
    report = result.value
    assert result.ok and report.exit_code == 4 and not report.stopped
    assert report.stdout == "args ['-x', '1']\nABC\n" and report.stderr == "warn\n"
    assert result.output.startswith("$ python prog.py -x 1\n[exit code 4, ")
    assert "--- stdout ---\nargs ['-x', '1']\nABC\n--- stderr ---\nwarn" in result.output


def test_a_program_that_loops_forever_is_stopped_and_reported(call, tool_ctx, tool_ws) -> None:
    tool_ctx.config = ToolsConfig(run_timeout_s=0.5)
    (tool_ws / "loop.py").write_text("print('start', flush=True)\nwhile True:\n    pass\n")
    result = call("run_python_file", path="loop.py")
    assert result.ok and result.value.exit_code is None
    assert "[stopped after 0.5 s (timeout)" in result.output and "start" in result.output
    assert result.duration_s < 10


def test_a_program_printing_without_end_is_stopped(call, tool_ctx, tool_ws) -> None:
    tool_ctx.config = ToolsConfig(output_limit_bytes=10_000, run_timeout_s=30)
    (tool_ws / "flood.py").write_text("while True:\n    print('x' * 1000)\n")
    result = call("run_python_file", path="flood.py")
    assert result.value.stopped == "stopped: output passed 10000 bytes"
    assert len(result.value.stdout) == 10_000 and result.duration_s < 20


def test_memory_cap_applies(call, tool_ctx, tool_ws) -> None:
    tool_ctx.config = ToolsConfig(memory_limit_mb=300)
    (tool_ws / "hog.py").write_text("x = bytearray(1_000_000_000)\nprint('allocated')\n")
    result = call("run_python_file", path="hog.py")
    assert result.value.exit_code != 0 and "MemoryError" in result.value.stderr


def test_run_python_file_bad_inputs(call, tool_ws) -> None:
    assert "no such file: nope.py" in call("run_python_file", path="nope.py").output
    assert "outside the workspace" in call("run_python_file", path="/usr/bin/env").output


PROJECT = {
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": (
        "import pytest\nfrom calc import add\n\n"
        "def test_add():\n    assert add(1, 2) == 3\n\n"
        "def test_wrong():\n    assert add(1, 1) == 3\n\n"
        "@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n\n"
        "@pytest.fixture\ndef broken():\n    raise RuntimeError('fixture')\n\n"
        "def test_broken(broken):\n    pass\n"
    ),
    "conftest.py": "",
}


@pytest.fixture
def fast_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The inner pytest skips this venv's plugins (langsmith, anyio, ...): 2 s less a run."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_run_pytest_parses_a_real_run(call, tool_ws, fast_pytest) -> None:
    for rel, text in PROJECT.items():
        (tool_ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (tool_ws / rel).write_text(text)
    result = call("run_pytest")
    summary = result.value
    assert (summary.passed, summary.failed, summary.errors, summary.skipped) == (1, 1, 1, 1)
    assert summary.failing == ["tests/test_calc.py::test_wrong", "tests/test_calc.py::test_broken"]
    assert summary.exit_code == 1 and not summary.ok
    assert result.output.startswith("pytest: 1 passed, 1 failed, 1 errors, 1 skipped (exit code 1)")
    only = call("run_pytest", path="tests/test_calc.py", keyword="test_add").value
    assert (only.passed, only.failed, only.ok) == (1, 0, True)
    assert not (tool_ws / ".pytest_cache").exists()


def test_run_pytest_collection_error_and_no_tests(call, tool_ws, fast_pytest) -> None:
    (tool_ws / "test_bad.py").write_text("def test_x(:\n    pass\n")
    bad = call("run_pytest").value
    assert bad.errors == 1 and bad.failing == ["test_bad.py"] and bad.exit_code == 2
    (tool_ws / "test_bad.py").unlink()
    (tool_ws / "empty").mkdir()
    none = call("run_pytest", path="empty").value
    assert none.exit_code == 5 and none.passed == 0


@pytest.mark.parametrize(
    "conftest",
    [
        "import os\n\ndef pytest_unconfigure(config):\n    os._exit(0)\n",
        "import pytest\n\n@pytest.fixture(autouse=True)\ndef stop(request):\n    yield\n"
        "    if request.node.name == 'test_after':\n        pytest.exit('no db', returncode=0)\n",
    ],
    ids=["os._exit(0) at the end", "pytest.exit(returncode=0) midway"],
)
def test_a_run_that_exits_0_after_a_failure_is_no_pass(
    call, tool_ws, fast_pytest, conftest: str
) -> None:
    """Seen in a probe: a conftest's exit 0 after a failing test made it `verified`."""
    (tool_ws / "conftest.py").write_text(conftest)
    tests = "def test_wrong():\n    assert 1 == 2\n\n\ndef test_after():\n    pass\n"
    (tool_ws / "test_a.py").write_text(tests)
    summary = call("run_pytest").value
    assert summary.exit_code == 0 and not summary.ok, summary
    assert summary.failing == ["test_a.py::test_wrong"] or summary.interrupted


def test_run_pytest_without_pytest_installed(call, tool_ctx, tool_ws) -> None:
    tool_ctx.config = ToolsConfig(python="/usr/bin/python3")
    (tool_ws / "test_a.py").write_text("def test_a():\n    pass\n")
    result = call("run_pytest")
    if result.ok:  # the system Python happens to have pytest
        pytest.skip("system python has pytest")
    assert "pytest could not run" in result.output


def test_parse_pytest_summary_variants() -> None:
    out = "== short test summary info ==\nFAILED t.py::a - assert 0\nERROR t.py::b\n"
    out += "== 3 failed, 2 passed, 2 errors in 0.5s =="
    parsed = parse_pytest(out)
    assert parsed == {"passed": 2, "failed": 3, "errors": 2, "skipped": 0,
                      "failing": ["t.py::a", "t.py::b"], "passing": [],
                      "interrupted": False}  # fmt: skip


def test_test_ids_with_spaces_are_read_whole() -> None:
    """A parametrized id may hold spaces and ` - ` comes before the message (on the first
    version: `t.py::test_add[small` read, and the test could never be run by its id)."""
    out = (
        "=== short test summary info ===\n"
        "FAILED t.py::test_add[small numbers] - AssertionError: boom - here\n"
        "FAILED t.py::test_eval[5 - 2] - assert 3 == 4\nERROR t.py - ImportError\n"
        "PASSED t.py::test_add[big one]\nPASSED t.py::test_eval[1 - 2]\n"
        "== 2 failed, 2 passed in 0.1s =="
    )
    parsed = parse_pytest(out)
    assert parsed["failing"] == ["t.py::test_add[small numbers]", "t.py::test_eval[5 - 2]", "t.py"]
    assert parsed["passing"] == ["t.py::test_add[big one]", "t.py::test_eval[1 - 2]"]


def test_what_a_test_prints_lists_no_test(call, tool_ws) -> None:
    """A reviewer's case: under `-s`, a passing test that printed `FAILED x - msg` was
    read as a failing test. Only pytest's short test summary lists them."""
    (tool_ws / "pytest.ini").write_text("[pytest]\naddopts = -s\n")
    printing = "def test_log():\n    print('FAILED test_a.py::test_other - not really')\n"
    (tool_ws / "test_a.py").write_text(printing + "\n\ndef test_wrong():\n    assert 1 == 2\n")
    summary = call("run_pytest").value
    assert "FAILED test_a.py::test_other" in summary.output_tail
    assert summary.failing == ["test_a.py::test_wrong"], summary
    (tool_ws / "test_a.py").write_text(printing)
    summary = call("run_pytest").value
    assert summary.ok and summary.failing == [], summary


def test_ids_are_read_from_every_summary_and_only_from_them() -> None:
    """A reviewer's cases: a command running pytest twice listed only the last session's
    ids; CRLF output listed none; a `FAILED` line printed to stderr after the report was
    read as a failing test."""
    banner, end = "=== short test summary info ===", "=== 1 failed in 0.1s ==="
    two = f"{banner}\nFAILED unit/t.py::test_u - x\n{end}\n{banner}\nFAILED i/t.py::test_i\n{end}"
    assert parse_pytest(two)["failing"] == ["unit/t.py::test_u", "i/t.py::test_i"]
    assert parse_pytest(two.replace("\n", "\r\n"))["failing"] == [
        "unit/t.py::test_u",
        "i/t.py::test_i",
    ]
    after = f"{banner}\nFAILED t.py::test_a\n{end}\nFAILED t.py::test_b - printed to stderr\n"
    assert parse_pytest(after)["failing"] == ["t.py::test_a"]


@pytest.mark.parametrize(
    ("command", "pytest_itself"),
    [
        (["pytest", "-x"], True),
        (["python3.12", "-m", "pytest"], True),
        ([".venv/bin/python", "-m", "pytest", "tests"], True),
        (["uv", "run", "pytest"], True),
        (["make", "pytest"], False),
        (["tox", "-e", "pytest"], False),
        (["python", "run_tests.py"], False),
    ],
)
def test_which_test_commands_are_pytest(command: list[str], pytest_itself: bool) -> None:
    """Only pytest itself takes pytest's options (`-rfEp -k`) added to it (on the first
    version `make pytest` was given them)."""
    from codur.verify.suite import runs_pytest

    assert runs_pytest(command) is pytest_itself


def test_discover_entry_points(call, tool_ws) -> None:
    files = {
        "tool.py": "def main():\n    pass\n\nif __name__ == '__main__':\n    main()\n",
        "main.py": 'if __name__ == "__main__":\n    print(1)\n',
        "app.py": "print('no guard')\n",
        "lib.py": "x = 1\n",
        "pkg/__main__.py": "print('pkg')\n",
        "pyproject.toml": '[project]\nname = "d"\n[project.scripts]\nd = "pkg.cli:main"\n',
    }
    for rel, text in files.items():
        (tool_ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (tool_ws / rel).write_text(text)
    found = call("discover_entry_points")
    files = ["main.py", "app.py", "pkg/__main__.py", "tool.py"]
    assert [p.path for p in found.value.files] == files
    assert found.output.splitlines() == [
        "main.py (__main__ guard and conventional name)",
        "app.py (conventional name)",
        "pkg/__main__.py (conventional name)",
        "tool.py (__main__ guard)",
        "d = pkg.cli:main (pyproject.toml [project.scripts])",
    ]
    assert "is not a folder" in call("discover_entry_points", path="main.py").output


def test_validate_python_syntax(call, tool_ws) -> None:
    (tool_ws / "ok.py").write_text("x = 1\n")
    (tool_ws / "bad.py").write_text("def f(:\n    pass\n")
    assert call("validate_python_syntax", path="ok.py").value.valid
    bad = call("validate_python_syntax", path="bad.py")
    assert bad.ok and not bad.value.valid and bad.value.line == 1
    assert bad.output.startswith("SyntaxError at line 1, column")
    assert call("validate_python_syntax", code="print(1)").output == "Syntax OK"
    assert "exactly one of" in call("validate_python_syntax").output
    assert "exactly one of" in call("validate_python_syntax", path="ok.py", code="x").output


MODULE = '''"""Doc."""
import functools


class Parser(Base, metaclass=Meta):
    """A parser."""

    @functools.cache
    def parse(self, text: str) -> list[str]:
        return text.split()

    async def close(self):
        pass


def parse(x=1, *a, **k):
    return x


def helper():
    return 2
'''


def test_outline_and_find_symbol(call, tool_ws) -> None:
    (tool_ws / "mod.py").write_text(MODULE)
    assert call("python_outline", path="mod.py").output.splitlines() == [
        "L5-13 class Parser(Base, metaclass=Meta)",
        "  L8-10 def parse(self, text: str) -> list[str]",
        "  L12-13 async def close(self)",
        "L16-17 def parse(x=1, *a, **k)",
        "L20-21 def helper()",
    ]
    method = call("find_python_symbol", path="mod.py", name="Parser.parse").output
    assert method.splitlines()[:2] == ["# mod.py lines 8-10", "    @functools.cache"]
    assert call("find_python_symbol", path="mod.py", name="parse").output.startswith(
        "# mod.py lines 16-17\ndef parse("
    )
    assert call("find_python_symbol", path="mod.py", name="close").ok
    missing = call("find_python_symbol", path="mod.py", name="nope")
    assert "no function or class 'nope'" in missing.output and "Parser.close" in missing.output
    (tool_ws / "broken.py").write_text("def (:\n")
    assert "does not parse" in call("python_outline", path="broken.py").output


def test_replace_symbol_reindents_and_refuses_broken_code(call, tool_ws) -> None:
    target = tool_ws / "mod.py"
    target.write_text(MODULE)
    new = "@functools.cache\ndef parse(self, text):\n    return text.split(',')\n"
    result = call("replace_python_symbol", path="mod.py", name="Parser.parse", new_source=new)
    assert result.output == "Replaced Parser.parse (was lines 8-10) in mod.py"
    text = target.read_text()
    assert (
        "    @functools.cache\n    def parse(self, text):\n        return text.split(',')\n" in text
    )
    assert "    async def close(self):" in text and "def helper():\n    return 2\n" in text
    broken = call("replace_python_symbol", path="mod.py", name="helper", new_source="def helper(:")
    assert not broken.ok and "would not parse" in broken.output
    assert target.read_text() == text


def test_ambiguous_names_must_be_qualified(call, tool_ws) -> None:
    (tool_ws / "two.py").write_text(
        "class A:\n    def run(self): ...\nclass B:\n    def run(self): ...\n"
    )
    result = call("replace_python_symbol", path="two.py", name="run", new_source="def run(): ...")
    assert (
        not result.ok and "'run' is ambiguous in two.py: qualify it (A.run, B.run)" in result.output
    )
    assert call(
        "replace_python_symbol",
        path="two.py",
        name="B.run",
        new_source="def run(self):\n    return 1",
    ).ok
    assert (
        (tool_ws / "two.py")
        .read_text()
        .endswith("class B:\n    def run(self):\n        return 1\n")
    )


def test_run_pytest_records_the_tests_that_passed_in_a_report(call, tool_ws) -> None:
    """The whole suite's passes come from Codur's plugin, into a folder outside the
    workspace (thousands of `PASSED` lines flooded the output cap): each test with the
    files it is written in and its class's bases; a failed one is not there."""
    tests = (
        "class Base:\n    def test_a(self):\n        pass\n\n\nclass TestA(Base):\n    pass\n\n\n"
    )
    tests += "def test_b():\n    pass\n\n\ndef test_c():\n    assert 0\n"
    (tool_ws / "test_a.py").write_text(tests)
    summary = call("run_pytest", record=True).value
    path = str((tool_ws / "test_a.py").resolve())
    rows = sorted(summary.recorded, key=lambda r: r["name"])
    assert [(r["name"], r["classes"][:2]) for r in rows] == [
        ("test_a", ["TestA", "Base"]),
        ("test_b", [""]),
    ]
    assert all(r["files"] == [path] for r in rows)
    assert not summary.passing and summary.failing == ["test_a.py::test_c"]


def test_a_module_named_like_codurs_plugin_in_the_folder_is_not_loaded_instead(tool_ws, call):
    # `python -m pytest` puts the folder first on sys.path: a module of the plugin's
    # name there, written by the code under test, would pass every test
    impostor = (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
        "    report = outcome.get_result()\n    report.outcome = 'passed'\n"
        "    report.longrepr = None\n"
    )
    (tool_ws / "codur_passes.py").write_text(impostor)
    (tool_ws / "test_a.py").write_text("def test_b():\n    pass\n\n\ndef test_c():\n    assert 0\n")
    summary = call("run_pytest", record=True).value
    assert not summary.ok and summary.failing == ["test_a.py::test_c"]
    assert [r["name"] for r in summary.recorded] == ["test_b"]


def test_a_test_failing_on_an_import_is_a_failure_not_a_pytest_that_cannot_run(
    tool_ws, call
) -> None:
    """Under --tb=native a test's ImportError shows pytest's own frames: it was taken for
    pytest failing to import itself, and the failing ids were lost."""
    (tool_ws / "pytest.ini").write_text("[pytest]\naddopts = --tb=native\n")
    (tool_ws / "test_a.py").write_text("def test_a():\n    from calcs import total\n")
    summary = call("run_pytest").value
    assert summary.failing == ["test_a.py::test_a"] and summary.failed == 1
