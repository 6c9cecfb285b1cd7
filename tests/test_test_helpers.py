"""The tests' own helpers are part of the check: the functions, classes and constants the
tests use other than the ones the task is about stay out of reach of the repair search
and of the model's edits (real files, a real CLI run with the repair search on)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import debug_log, run_cli, scripted_profile, whole_file, write_files

from codur.scope import ScopeError, decide_scope
from codur.verify.evidence import Location

ENCODE = (
    "def encode_cyclic(s: str) -> str:\n"
    '    """Rotate each group of three characters one place to the left."""\n'
    "    groups = [s[i : i + 3] for i in range(0, len(s), 3)]\n"
    '    return "".join(g[1:] + g[:1] if len(g) == 3 else g for g in groups)\n'
)
CYCLIC = (
    f"{ENCODE}\n\n"
    "def decode_cyclic(s: str) -> str:\n"
    '    """The inverse of encode_cyclic."""\n'
    "    return encode_cyclic(s)\n"
)
"""decode_cyclic is wrong (rotating left once more is no inverse); encode_cyclic is right,
and made the identity (`len(g) != 3`) it lets the round trip pass with decode still wrong."""
FIXED = CYCLIC.replace("return encode_cyclic(s)", "return encode_cyclic(encode_cyclic(s))")
ROUND_TRIP = (
    "import random\nimport string\n\n"
    "from {module} import decode_cyclic, encode_cyclic\n\n\n"
    "def test_round_trip():\n"
    "    rng = random.Random(0)\n"
    "    for _ in range(50):\n"
    "        size = rng.randint(5, 20)\n"
    '        s = "".join(rng.choice(string.ascii_lowercase) for _ in range(size))\n'
    "        assert decode_cyclic(encode_cyclic(s)) == s\n"
)
TASK = "Fix the bug in @decode_cyclic.py so that `pytest test_decode_cyclic.py` passes"


def helpers_of(root: Path, files: dict[str, str], task: str, path: str) -> list[str]:
    write_files(root, files)
    return decide_scope(task, root, "expected.txt").summary()["test_helpers"].get(path, [])


def cyclic(module: str) -> dict[str, str]:
    return {f"{module}.py": CYCLIC, f"test_{module}.py": ROUND_TRIP.format(module=module)}


def test_the_helper_that_builds_the_inputs_is_protected(tmp_path: Path) -> None:
    # the file's name says which function the task is about
    assert helpers_of(tmp_path, cyclic("decode_cyclic"), TASK, "decode_cyclic.py") == [
        "encode_cyclic"
    ]


def test_without_a_name_to_go_by_the_function_whose_result_is_asserted_is_under_test(
    tmp_path: Path,
) -> None:
    task = "Fix the bug in @cyclic.py"
    assert helpers_of(tmp_path, cyclic("cyclic"), task, "cyclic.py") == ["encode_cyclic"]


def test_a_task_that_names_the_helper_unlocks_it(tmp_path: Path) -> None:
    task = "encode_cyclic in @decode_cyclic.py is wrong: fix it"
    assert helpers_of(tmp_path, cyclic("decode_cyclic"), task, "decode_cyclic.py") == []


@pytest.mark.parametrize(
    ("test", "protected"),
    [
        # HumanEval's style: a local check() judges the calls of its parameter
        (
            "from lib import build, solve\n\n\ndef check(candidate):\n"
            "    assert candidate(build(3)) == 6\n\n\ndef test():\n    check(solve)\n",
            ["build"],
        ),
        # a predicate over a result of the code judges; the result is what is checked
        (
            "from lib import is_sorted, my_sort\n\n\ndef test():\n"
            "    assert is_sorted(my_sort([3, 1, 2]))\n",
            ["is_sorted"],
        ),
        # a predicate over plain data is itself under test
        (
            "from lib import is_sorted\n\n\ndef test():\n    assert is_sorted([1, 2])\n",
            [],
        ),
        # an object whose method's result is compared is under test; constants are data
        (
            "import lib\n\n\ndef test():\n    c = lib.Counter()\n    c.add(lib.STEP)\n"
            "    assert c.total() == lib.STEP\n",
            ["STEP"],
        ),
        # an input built in a variable first, and pytest.raises
        (
            "import pytest\nfrom lib import build, solve\n\n\ndef test():\n"
            "    data = build(2)\n    with pytest.raises(ValueError):\n        solve(data)\n",
            ["build"],
        ),
    ],
)
def test_what_the_tests_assert_on_is_told_from_what_they_use(
    tmp_path: Path, test: str, protected: list[str]
) -> None:
    lib = (
        "STEP = 2\n\n\ndef build(n):\n    return list(range(n))\n\n\n"
        "def solve(xs):\n    return sum(xs)\n\n\n"
        "def my_sort(xs):\n    return sorted(xs)\n\n\n"
        "def is_sorted(xs):\n    return xs == sorted(xs)\n\n\n"
        "class Counter:\n    def __init__(self):\n        self.n = 0\n\n"
        "    def add(self, k):\n        self.n += k\n\n"
        "    def total(self):\n        return self.n\n"
    )
    files = {"lib.py": lib, "tests/test_lib.py": test}
    assert helpers_of(tmp_path, files, "Fix the bug in @lib.py", "lib.py") == protected


def test_a_function_the_failing_test_called_that_raised_is_no_helper(tmp_path: Path) -> None:
    write_files(tmp_path, cyclic("cyclic"))
    scope = decide_scope("Fix the bug in @cyclic.py", tmp_path, "expected.txt")
    line = CYCLIC.splitlines().index("    groups = [s[i : i + 3] for i in range(0, len(s), 3)]")
    assert not scope.allows_lines("cyclic.py", line + 1, line + 1)
    frames = [Location(path="test_cyclic.py", line=12), Location(path="cyclic.py", line=line + 1)]
    found = scope.failing_found(frames)
    assert found.failing_calls == {"cyclic.py": ["encode_cyclic"]}
    assert not scope.allows_lines("cyclic.py", line + 1, line + 1)  # not learned yet
    scope = scope.knowing(found)
    assert scope.allows_lines("cyclic.py", line + 1, line + 1)
    assert scope.summary()["test_helpers"] == {}
    assert scope.failing_found(frames).failing_calls == {}  # nothing new


def test_model_edits_of_a_helper_are_refused_or_trimmed(tmp_path: Path) -> None:
    write_files(tmp_path, cyclic("decode_cyclic"))
    scope = decide_scope(TASK, tmp_path, "expected.txt")
    identity = CYCLIC.replace("len(g) == 3", "len(g) != 3")
    with pytest.raises(ScopeError, match=r"encode_cyclic\(\)"):
        scope.admit("decode_cyclic.py", CYCLIC, identity)
    both = FIXED.replace("len(g) == 3", "len(g) != 3")
    assert scope.admit("decode_cyclic.py", CYCLIC, both) == FIXED
    assert scope.admit("decode_cyclic.py", CYCLIC, FIXED) == FIXED
    decode = CYCLIC.splitlines().index("    return encode_cyclic(s)") + 1
    assert scope.allows_lines("decode_cyclic.py", decode, decode)


@pytest.mark.slow
def test_the_repair_search_leaves_the_tests_helper_alone(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    write_files(work, cyclic("decode_cyclic"))
    flags = scripted_profile(tmp_path, [whole_file("decode_cyclic.py", FIXED)], repair=True)
    budget = ["-o", "repair.time_budget_s=600", "-o", "verify.timeout_s=120"]  # a busy machine
    result = run_cli([*flags, *budget, TASK], cwd=work, timeout=1500)
    records = [json.loads(line) for line in debug_log(work).read_text().splitlines()]
    changed = [r["change"] for r in records if r["event"] == "repair.candidate"]
    encode_lines = range(1, ENCODE.count("\n") + 1)
    assert not [c for c in changed if int(c.split("line ")[1].split(":")[0]) in encode_lines]
    assert (work / "decode_cyclic.py").read_text() == FIXED, result.stdout + result.stderr
    scope = next(r for r in records if r["event"] == "scope")
    assert scope["test_helpers"] == {"decode_cyclic.py": ["encode_cyclic"]}
    end = records[-1]
    assert end["status"] == "verified" and end["model_calls"] == 1, {
        k: end.get(k) for k in ("status", "message", "reason", "error")
    }


LIBRARY = (
    "import re\n\nPATTERN = re.compile(r'{(\\w*)}')\n\n\n"
    "class Parser:\n"
    "    def __init__(self, fmt):\n        self.names = PATTERN.findall(fmt)\n\n"
    "    def parse(self, text):\n        return dict(zip(self.names, text.split()))\n\n\n"
    "def compile(fmt):\n    return Parser(fmt.strip())\n\n\n"
    "def names_of(parser):\n    return parser.names\n\n\n"
    "def parse(fmt, text):\n    return compile(fmt).parse(text)\n"
)
"""A small library: the bug (`\\w` leaves out `-`) is in what `parse` calls."""
LIBRARY_TESTS = (
    "import library\n\n\n"
    "def test_names():\n"
    "    assert library.names_of(library.compile('{a} {b}')) == ['a', 'b']\n\n\n"
    "class TestHyphens:\n"
    "    def test_hyphen(self):\n"
    "        assert library.parse('{a-b}', '1') == {'a-b': '1'}\n"
)


def test_the_helpers_that_judge_a_task_are_those_of_the_tests_that_fail(tmp_path: Path) -> None:
    """A package's suite uses most of the package (here `compile`, which builds another
    test's input): once the first check names the failing tests, what those use is
    what stays as it is, so the bug in what `parse` calls is within reach; a round trip's
    input builder stays protected when its own test is the one failing."""
    from codur.scope.learned import ScopeLearned

    write_files(tmp_path, {"library.py": LIBRARY, "tests/test_library.py": LIBRARY_TESTS})
    scope = decide_scope("tests/test_library.py fails: fix the bug", tmp_path, "expected.txt")
    assert scope.summary()["test_helpers"] == {"library.py": ["compile"]}
    failing = ("tests/test_library.py::TestHyphens::test_hyphen",)
    focused = scope.knowing(ScopeLearned(failing_tests=failing))
    assert focused.summary()["test_helpers"] == {}
    line = LIBRARY.splitlines().index("def compile(fmt):") + 2
    assert focused.allows_lines("library.py", line, line)
    assert not scope.allows_lines("library.py", line, line)  # the whole suite's helpers

    write_files(tmp_path / "rt", cyclic("cyclic"))
    round_trip = decide_scope("Fix the bug in @cyclic.py", tmp_path / "rt", "expected.txt")
    ids = ("test_cyclic.py::test_round_trip",)
    assert round_trip.knowing(ScopeLearned(failing_tests=ids)).summary()["test_helpers"] == {
        "cyclic.py": ["encode_cyclic"]
    }


def test_failing_test_ids_name_their_functions_in_pytest_and_unittest_spelling() -> None:
    from codur.scope.test_focus import named

    tests = ["tests/test_a.py", "tests/sub/test_b.py"]
    ids = [
        "tests/test_a.py::test_one[1-2]",
        "tests/test_a.py::TestC::test_two",
        "tests.sub.test_b.TestD.test_three",
    ]
    assert named(ids, tests) == {
        "tests/test_a.py": {("test_one",), ("TestC", "test_two")},
        "tests/sub/test_b.py": {("TestD", "test_three")},
    }
    # one id that names no test of these files: nothing is focused (the whole suite)
    assert named([*ids, "tests/test_other.py::test_four"], tests) == {}


SORTS = (
    "def reference_sort(xs):\n    return sorted(xs)\n\n\n"
    "def build(n):\n    return list(range(n, 0, -1))\n\n\n"
    "def my_sort(xs):\n    return list(xs)\n"
)
SORT_TESTS = (
    "import lib\n\nEXPECTED = lib.reference_sort([3, 1, 2])\n\n\n"
    "def test_sort():\n    assert lib.my_sort([3, 1, 2]) == EXPECTED\n\n\n"
    "class Base:\n    def setup_method(self):\n        self.xs = lib.build(3)\n\n\n"
    "class TestB(Base):\n    def test_x(self):\n        assert lib.my_sort(self.xs) == [1, 2, 3]\n"
)


@pytest.mark.parametrize(
    ("failing", "kept"),
    [
        ("tests/test_lib.py::test_sort", ["reference_sort"]),
        ("tests/test_lib.py::TestB::test_x", ["build", "reference_sort"]),
        ("tests/test_lib.py::test_sort[a::b c]", ["reference_sort"]),
    ],
)
def test_the_failing_tests_data_setup_and_base_classes_keep_their_helpers(
    tmp_path: Path, failing: str, kept: list[str]
) -> None:
    """What a failing test relies on beyond its body is read too: module-level data
    built with the code, its class's setup and base classes; an id with odd parameters
    names its function."""
    from codur.scope.learned import ScopeLearned

    write_files(tmp_path, {"lib.py": SORTS, "tests/test_lib.py": SORT_TESTS})
    scope = decide_scope("tests/test_lib.py fails: fix the bug", tmp_path, "expected.txt")
    assert scope.summary()["test_helpers"] == {"lib.py": ["build", "reference_sort"]}
    focused = scope.knowing(ScopeLearned(failing_tests=(failing,)))
    assert focused.summary()["test_helpers"] == {"lib.py": kept}


def test_an_id_that_names_no_test_focuses_nothing(tmp_path: Path) -> None:
    from codur.scope.learned import ScopeLearned

    write_files(tmp_path, {"lib.py": SORTS, "tests/test_lib.py": SORT_TESTS})
    scope = decide_scope("tests/test_lib.py fails: fix the bug", tmp_path, "expected.txt")
    for ids in [("tests/test_lib.py",), ("tests/test_lib.py::test_gone",), ("other.py::t",)]:
        learned = ScopeLearned(failing_tests=ids)
        assert scope.knowing(learned).summary()["test_helpers"] == {
            "lib.py": ["build", "reference_sort"]
        }
