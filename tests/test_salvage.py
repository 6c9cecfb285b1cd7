"""A reply stopped as it began to copy a file shown in part (codur/agents/salvage.py):
what it gave before the stop is kept only as functions merged into the file, never as
the whole new file, and never a function cut short. A real Session on a temporary
folder; no model."""

from __future__ import annotations

from pathlib import Path

from codur.agents.salvage import complete_part, salvage
from codur.config import load_config
from codur.edits.excerpt import excerpt
from codur.events import EventBus
from codur.session import Session
from codur.workspace import Workspace

TABLE = "\n".join(f'    "k{n}": {n},' for n in range(420))
UNITS = f"""import math

SCALE = 2


def scale(x):
    if x < 0:
        return 0
    y = x + SCALE
    return y


def other(x):
    return x


_LEGACY = {{
{TABLE}
}}
"""


def _session(root: Path) -> Session:
    return Session(load_config(root, environ={}).config, Workspace(root), EventBus())


def _copied(view: str) -> str:
    """The reply as the server gives it back: the view copied, stopped at (and without)
    its first left-out-lines line."""
    return "Fix.\n\nunits.py\n```python\n" + view.split("\n# ... line")[0]


def test_a_copied_view_with_every_definition_is_not_taken_for_the_whole_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "units.py").write_text(UNITS)
    view = excerpt(UNITS, ["scale", "other"]).text  # every definition shown, the table not
    fixed = _copied(view).replace("x + SCALE", "x * SCALE")
    assert salvage(fixed, {"units.py": UNITS}, "functions", _session(tmp_path)) is None
    consts = "".join(f"C{n} = {n}\n" for n in range(40))
    (tmp_path / "consts.py").write_text(consts)
    files = {"units.py": UNITS, "consts.py": consts}
    cut = "Fix.\n\nconsts.py\n```python\nC0 = 100\nC1 = 1\n"  # a file with no definitions
    assert salvage(cut, files, "functions", _session(tmp_path)) is None


def test_the_changed_function_is_merged_and_one_cut_short_is_not(tmp_path: Path) -> None:
    (tmp_path / "units.py").write_text(UNITS)
    view = excerpt(UNITS, ["scale"]).text
    fixed = _copied(view).replace("x + SCALE", "x * SCALE")
    proposal = salvage(fixed, {"units.py": UNITS}, "functions", _session(tmp_path))
    assert proposal is not None
    assert proposal.sources == {"units.py": UNITS.replace("x + SCALE", "x * SCALE")}
    assert "the complete functions before that were used" in proposal.notes[-1]
    half = _copied(view).split("    y = x")[0].replace("return 0", "return -1")
    assert salvage(half, {"units.py": UNITS}, "functions", _session(tmp_path)) is None


SHOP = '''import math


class Cart:
    """A cart."""

    def __init__(self):
        self.items = []

    def total(self):
        s = 0
        for item in self.items:
            s += item
        return s - 1

    def count(self):
        return len(self.items)


def helper(x):
    def inner(y):
        return y + 1

    return inner(x) * 2
'''


def test_a_reply_cut_at_its_limit_keeps_the_methods_it_completed(tmp_path: Path) -> None:
    """The model writes the whole class and its budget runs out in a later method: the
    method it changed before the cut is merged; the class's other members stay."""
    (tmp_path / "shop.py").write_text(SHOP)
    head = SHOP.split("\n\ndef helper")[0].replace("return s - 1", "return s")
    cut = "Fix.\n\nshop.py\n```python\n" + head.split("len(self")[0]  # inside count()
    proposal = salvage(cut, {"shop.py": SHOP}, "functions", _session(tmp_path), cut=True)
    assert proposal is not None
    assert proposal.sources == {"shop.py": SHOP.replace("return s - 1", "return s")}
    assert "the one it cut was not" in proposal.notes[-1]


def test_a_reply_cut_inside_a_function_keeps_nothing_of_it(tmp_path: Path) -> None:
    """A definition line inside a function (a nested one) does not end that function:
    nothing before it is taken for complete, nor is a reply cut outside its block."""
    (tmp_path / "shop.py").write_text(SHOP)
    nested = "shop.py\n```python\ndef helper(x):\n    def inner(y):\n        return y + 2\n"
    nested += "\n    def more"
    assert salvage(nested, {"shop.py": SHOP}, "functions", _session(tmp_path), cut=True) is None
    assert complete_part(nested.split("\n")) == []
    closed = "shop.py\n```python\ndef helper(x):\n    return x\n```\n\nThis fixes"
    assert complete_part(closed.split("\n")) == []
    decorated = ["```python", "def a():", "    return 1", "", "@cache", "def b():", "    ret"]
    assert complete_part(decorated) == decorated[:4]  # cut before the decorator
