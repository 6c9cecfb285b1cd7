"""An edit may not leave a name undefined that the file did not: a reply that pastes code
beside its fix (a copy of a test calling helpers the module lacks) is refused and the
model told which name on which line, though the checks would never run that code. The
file's own undefined names (installed at run time) stay usable. Unit rows, then a
whole-graph run with a scripted model and real processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import FIXED, tool_calls, whole_file
from test_graph import PLAN, Run

from codur.edits.names import left_undefined
from codur.tools.registry import invoke

FIX = "def mean(xs):\n    return sum(xs) / len(xs)\n"
ROWS = {  # name: (old, new, the names refused)
    "a pasted test calling a helper the module lacks": (
        "def mean(xs):\n    return sum(xs) / (len(xs) - 1)\n",
        FIX + "\n\ndef test_mean():\n    assert_close(mean([1, 3]), 2)\n",
        ["assert_close"],
    ),
    "a local read before it is assigned": (
        FIX,
        "def mean(xs):\n    total += sum(xs)\n    return total / len(xs)\n",
        ["total"],
    ),
    "an export that does not exist": (FIX, '__all__ = ["mean", "median"]\n' + FIX, ["median"]),
    "the fix alone": ("def mean(xs):\n    return sum(xs)\n", FIX, []),
    "a name the program installs at run time, used before": (
        "def hello():\n    return _('hi')\n",
        "def hello():\n    return _('hi') + _('!')\n",
        [],
    ),
    "an old text that does not parse: its names count": (
        "def hello(:\n    return _('hi')\n",
        "def hello():\n    return _('hi') + later()\n",
        ["later"],
    ),
    "a new file": (
        None,
        "from math import fsum\n\n\ndef mean(xs):\n    return fsum(xs) / n\n",
        ["n"],
    ),
    "not Python": ("a = 1\n", "b = undefined_thing\n", []),
    "a name inside an f-string": (FIX, FIX + "\n\nprint(f'mean {helper(1)}')\n", ["helper"]),
    "an annotation Python evaluates": (FIX, FIX.replace("(xs):", "(xs: Sequence):"), ["Sequence"]),
    "annotations never evaluated: strings, locals, postponed": (
        "from __future__ import annotations\n\n\n" + FIX,
        "from __future__ import annotations\n\n\n"
        "def mean(xs: Sequence[float], w: 'Weights' = None) -> Optional[float]:\n"
        "    total: Number = sum(xs)\n    return total / len(xs)\n",
        [],
    ),
}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_names_an_edit_leaves_undefined(row: str) -> None:
    old, new, names = ROWS[row]
    path = "notes.txt" if row == "not Python" else "stats.py"
    found = left_undefined(path, old, new)
    assert [line.split("'")[1] for line in found] == names
    assert all(line.startswith(f"{path}:") for line in found)


@pytest.mark.slow
def test_a_fix_with_pasted_code_using_undefined_names_is_refused(tmp_path: Path) -> None:
    """The first reply fixes the bug and adds a test copy calling `check`, which nothing
    defines: on main it was written and the run verified. It is refused, the model is told
    why, and the clean reply after it is verified."""
    pasted = FIXED.replace("\nprint(", "\n\ndef test_total():\n    check(total([1]), 1)\n\nprint(")
    run = Run(tmp_path, [PLAN, whole_file("main.py", pasted), whole_file("main.py", FIXED)])
    assert run.result.status == "verified", run.result.message
    assert (run.root / "main.py").read_text() == FIXED
    refused = run.kinds("edit.refused")
    assert [e["path"] for e in refused] == ["main.py"]
    assert "undefined name 'check'" in refused[0]["reason"]
    retry = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "main.py:9: undefined name 'check'" in retry


@pytest.mark.slow
def test_a_tool_write_leaving_a_name_undefined_fails_the_checks(tmp_path: Path) -> None:
    """The same rule for the coder's tools (write_file), held at the checks: on main the
    pasted test copy went through the tool and the run verified. The write goes through
    (a model editing step by step may write a call before its function) with a note, and
    the names check fails the run, though the expected output is right, until the name
    is gone."""
    pasted = FIXED.replace("\nprint(", "\n\ndef test_total():\n    check(total([1]), 1)\n\nprint(")
    write = tool_calls(("write_file", {"path": "main.py", "content": pasted}))
    rewrite = tool_calls(("write_file", {"path": "main.py", "content": FIXED}))
    run = Run(tmp_path, [PLAN, write, "Done.", rewrite, "Removed the copy."])
    assert run.result.status == "verified", run.result.message
    assert (run.root / "main.py").read_text() == FIXED
    result = run.kinds("tool.result")[0]
    assert result["tool"] == "write_file" and result["ok"] is True
    assert "Note: main.py:9: undefined name 'check'" in result["output"]
    assert [e["path"] for e in run.kinds("edit.undefined")] == ["main.py"]
    first = run.kinds("verify.result")[1]  # the first check after the model's edit
    assert first["passed"] is False
    assert any("uses a name nothing defines: main.py:9" in c for c in first["checks"])
    retry = run.kinds("model.request")[3]["messages"][-1]["content"]  # after that check
    assert "main.py:9: undefined name 'check'" in retry


def test_a_call_written_before_its_function_is_fine_once_both_are(tmp_path: Path) -> None:
    """Step by step through the tools: the call first (written, with a note), then the
    function (no note); the names check passes on the result and fails in between."""
    from codur.verify.names_check import NamesCheck

    session, ctx = _session(tmp_path, "def area(r):\n    return 3 * r * r\n")
    known = {"main.py": []}
    call = "def area(r):\n    return circle_area(r)\n"
    first = invoke("write_file", {"path": "main.py", "content": call}, ctx)
    assert first.ok and "Note: main.py:2: undefined name 'circle_area'" in first.output
    assert not NamesCheck(files=known).run(ctx).passed
    whole = "def circle_area(r):\n    return 3.14159 * r * r\n\n\n" + call
    second = invoke("write_file", {"path": "main.py", "content": whole}, ctx)
    assert second.ok and "Note" not in second.output
    assert NamesCheck(files=known).run(ctx).passed


@pytest.mark.slow
def test_a_reply_with_one_file_refused_for_names_changes_no_file(tmp_path: Path) -> None:
    """A reply fixing two files where one is refused for a name it leaves undefined writes
    neither: main.py alone would import what util.py does not have."""
    util = "def clean(s):\n    return s.strip()\n"
    main = "from util import clean\n\nprint(clean('  a   b  '))\n"
    reply = (
        "Collapse spaces.\n\nutil.py\n```python\n" + util + "\n\ndef squash(s):\n"
        "    return SPACES.sub(' ', s).strip()\n```\n\nmain.py\n```python\n"
        "from util import squash\n\nprint(squash('  a   b  '))\n```\n"
    )
    files = {"util.py": util, "main.py": main, "expected.txt": "a b\n"}
    run = Run(
        tmp_path,
        [PLAN, reply],
        task="fix @main.py and @util.py",
        files=files,
        overrides=["runtime.max_iterations=1"],
    )
    assert (run.root / "main.py").read_text() == main and (run.root / "util.py").read_text() == util
    assert [e["path"] for e in run.kinds("edit.refused")] == ["util.py"]


def test_a_file_too_deep_for_pyflakes_is_not_refused() -> None:
    """A 400-branch elif chain compiles but exhausts pyflakes' recursion: no verdict, no
    refusal (a RecursionError escaped the write path)."""
    chain = "def kind(x):\n    if x == 0:\n        return 0\n" + "".join(
        f"    elif x == {i}:\n        return {i}\n" for i in range(1, 400)
    )
    assert left_undefined("kinds.py", chain, chain + "\nprint(kind(3))\n") == []


def _session(root: Path, original: str):
    """A run's session on `root` holding main.py as `original`: snapshot and scope taken."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.scope.decide import decide_scope
    from codur.session import Session
    from codur.undo.snapshot import begin
    from codur.workspace import Workspace

    (root / "main.py").write_text(original)
    config = load_config(root, overrides=["approval.mode=full-auto"], environ={}).config
    session = Session(config, Workspace(root), EventBus())
    session.changes.snapshot = begin(session.ws, config, session.run_id, "a task", session.bus)
    session.changes.scope = decide_scope("fix @main.py", root, "expected.txt", set())
    return session, session.tool_context()


def test_putting_a_file_back_is_never_refused(tmp_path: Path) -> None:
    """The file as the run found it used a name nothing defines; the run defined it, then
    restore_file puts the file back: allowed (the rule compares with the original too),
    while a new undefined name is still noted."""
    original = "def total(xs):\n    return sum_all(xs)\n"
    _, ctx = _session(tmp_path, original)
    fixed = "def sum_all(xs):\n    return sum(xs)\n\n\n" + original
    assert invoke("write_file", {"path": "main.py", "content": fixed}, ctx).ok
    pasted = invoke("write_file", {"path": "main.py", "content": fixed + "check(1)\n"}, ctx)
    assert pasted.ok and "Note: main.py:7: undefined name 'check'" in pasted.output
    restored = invoke("restore_file", {"path": "main.py"}, ctx)
    assert restored.ok, restored.output
    assert "Note" not in restored.output
    assert (tmp_path / "main.py").read_text() == original
