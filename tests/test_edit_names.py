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
def test_a_tool_write_leaving_names_undefined_is_refused(tmp_path: Path) -> None:
    """The same rule for the coder's tools (write_file): on main the pasted test copy went
    through the tool and the run verified; the tool refuses it and the model reads why."""
    pasted = FIXED.replace("\nprint(", "\n\ndef test_total():\n    check(total([1]), 1)\n\nprint(")
    write = tool_calls(("write_file", {"path": "main.py", "content": pasted}))
    run = Run(tmp_path, [PLAN, write, whole_file("main.py", FIXED)])
    assert run.result.status == "verified", run.result.message
    assert (run.root / "main.py").read_text() == FIXED
    result = run.kinds("tool.result")[0]
    assert result["tool"] == "write_file" and result["ok"] is False
    followup = run.kinds("model.request")[2]["messages"][-1]["content"]
    assert "refused to change main.py" in followup and "undefined name 'check'" in followup


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


def test_putting_a_file_back_is_never_refused(tmp_path: Path) -> None:
    """The file as the run found it used a name nothing defines; the run defined it, then
    restore_file puts the file back: allowed (the rule compares with the original too),
    while a new undefined name is still refused."""
    from codur.config import load_config
    from codur.events import EventBus
    from codur.scope.decide import decide_scope
    from codur.session import Session
    from codur.tools.registry import invoke
    from codur.undo.snapshot import begin
    from codur.workspace import Workspace

    original = "def total(xs):\n    return sum_all(xs)\n"
    (tmp_path / "main.py").write_text(original)
    config = load_config(tmp_path, overrides=["approval.mode=full-auto"], environ={}).config
    session = Session(config, Workspace(tmp_path), EventBus())
    session.changes.snapshot = begin(session.ws, config, session.run_id, "a task", session.bus)
    session.changes.scope = decide_scope("fix @main.py", tmp_path, "expected.txt", set())
    ctx = session.tool_context()
    fixed = "def sum_all(xs):\n    return sum(xs)\n\n\n" + original
    assert invoke("write_file", {"path": "main.py", "content": fixed}, ctx).ok
    pasted = invoke("write_file", {"path": "main.py", "content": fixed + "check(1)\n"}, ctx)
    assert not pasted.ok and "undefined name 'check'" in pasted.output
    restored = invoke("restore_file", {"path": "main.py"}, ctx)
    assert restored.ok, restored.output
    assert (tmp_path / "main.py").read_text() == original
