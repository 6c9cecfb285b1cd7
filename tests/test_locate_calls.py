"""What the failing tests call, as the locator follows it (codur/agents/locate.py over
codur/search/calls.py): a package in the `src` layout, a local holding an instance and
the methods Python calls implicitly on it, inherited methods, and the methods that set
what a failing line reads."""

from __future__ import annotations

from pathlib import Path

from codur.agents.locate import Locator
from codur.search.calls import python_calls
from codur.search.index import CodeIndex
from codur.search.resolve import Resolver
from codur.verify.evidence import Evidence, Location
from codur.verify.plan import VerificationPlan
from codur.verify.result import VerificationResult
from codur.verify.target import is_test

CART = """class Base:
    def __len__(self):
        return len(self.items)


class Cart(Base):
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, n):
        return self.items[n]

    def __contains__(self, item):
        return item in self.items


class Unrelated:
    def __iter__(self):
        return iter(())
"""
TEST = """from shop import Cart


def test_cart():
    cart = Cart()
    cart.add(1)
    assert cart[0] == 1
    assert 1 in cart
    assert len(cart) == 1
    assert list(cart) == [1]
"""


def _index(root: Path) -> CodeIndex:
    index = CodeIndex(None)
    index.update((p.relative_to(root).as_posix(), p) for p in sorted(root.rglob("*.py")))
    return index


def _verdict(tests: list[str], frames: list[Location]) -> VerificationResult:
    evidence = Evidence(
        check="tests", passed=False, command="tests", summary="", feedback="",
        failing_tests=tests, locations=frames,
    )  # fmt: skip
    return VerificationResult(
        passed=False, strategy="tests", evidence=[evidence], plan=VerificationPlan()
    )


def _shop(root: Path) -> Path:
    (root / "src/shop").mkdir(parents=True)
    (root / "src/shop/__init__.py").write_text("from shop.cart import Cart\n")
    (root / "src/shop/cart.py").write_text(CART)
    (root / "tests").mkdir()
    (root / "tests/test_cart.py").write_text(TEST)
    return root


def test_a_src_layout_package_and_the_methods_called_on_an_instance(tmp_path: Path) -> None:
    locator = Locator(_index(_shop(tmp_path)), is_test)
    found = locator.rank("the cart is wrong", _verdict(["tests/test_cart.py::test_cart"], []))
    called = {f.name for f in found if f.why == "the failing test calls it"}
    # the class's __init__, a method, the subscript, `in`, `len()` (inherited), list()
    assert called == {
        "Cart.__init__", "Cart.add", "Cart.__getitem__", "Cart.__contains__", "Base.__len__",
        "Cart.__iter__",
    }  # fmt: skip
    assert all(f.path == "src/shop/cart.py" for f in found)


def test_only_a_local_known_to_hold_an_instance_gets_implicit_calls() -> None:
    source = (
        "def f(data, make):\n    x = make()\n    len(data), len(x)\n    for _ in data: pass\n"
        "    y = Point(1, 2)\n    y = data\n    y[0]\n"
    )
    _, calls = python_calls("m.py", source)
    assert [c.callee for c in calls] == ["make", "len", "Point"]  # one `len` a line
    _, calls = python_calls("m.py", "def f():\n    p = Point(1)\n    p[0] = 2\n    del p[1]\n")
    assert [c.callee for c in calls] == ["Point", "Point.__setitem__", "Point.__delitem__"]


COMPOSE = """class Compose:
    def __init__(self, funcs):
        funcs = tuple(reversed(funcs))
        self.first = funcs[0]
        self.funcs = funcs[1:]

    def __call__(self, *args):
        ret = self.first(*args)
        for f in self.funcs:
            ret = f(ret)
        return ret

    def __setstate__(self, state):
        self.first, self.funcs = state

    def __repr__(self):
        return "Compose"
"""


def test_where_what_the_failing_line_reads_is_set_comes_next(tmp_path: Path) -> None:
    (tmp_path / "fn.py").write_text(COMPOSE)
    (tmp_path / "test_fn.py").write_text(
        "from fn import Compose\n\n\ndef test_it():\n    assert Compose([str, int])('1') == '1'\n"
    )
    raised = [Location(path="test_fn.py", line=5), Location(path="fn.py", line=8)]
    verdict = _verdict(["test_fn.py::test_it"], raised)
    found = Locator(_index(tmp_path), is_test).rank("composition fails", verdict)
    assert [(f.name, f.why) for f in found[:2]] == [
        ("Compose.__call__", "the failing run's traceback (line 8)"),
        ("Compose.__init__", "it sets self.first, which the failing line reads"),
    ]
    setters = [f.name for f in found if f.why.startswith("it sets")]
    assert setters == ["Compose.__init__", "Compose.__setstate__"]  # not __repr__


def test_what_the_failing_line_calls_comes_first(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
    )
    (tmp_path / "test_calc.py").write_text(
        "import calc\n\n\ndef test_calc():\n"
        "    assert calc.add(1, 1) == 2\n    assert calc.sub(1, 1) == 0\n"
    )
    locator = Locator(_index(tmp_path), is_test)
    tests = ["test_calc.test_calc"]
    assert [f.name for f in locator.called_by(tests, set())] == ["add", "sub"]
    assert [f.name for f in locator.called_by(tests, {("test_calc.py", 6)})] == ["sub", "add"]


def test_a_method_name_many_classes_share_is_no_mention(tmp_path: Path) -> None:
    """`doc.render()` in a task names none of six `render` methods (it would fill the
    prompt with them); a name only one function has still counts."""
    classes = "".join(
        f"class K{n}:\n    def render(self):\n        return {n}\n\n\n" for n in range(6)
    )
    (tmp_path / "doc.py").write_text(classes + "def total(xs):\n    return sum(xs)\n")
    locator = Locator(_index(tmp_path), is_test)
    named = locator.mentioned("`doc.render()` and `total()` are wrong")
    assert [f.name for f in named] == ["total"]
    assert [f.name for f in locator.mentioned("`K3.render()` is wrong")] == ["K3.render"]


def test_src_as_a_package_star_imports_rebinding_and_a_cycle_of_bases(tmp_path: Path) -> None:
    """Review cases: a project whose package is named `src` (`from src.calc import add`);
    a class a star import brings; a name rebound by `for` holds no instance any more;
    classes that are each other's base are looked up once each."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src/__init__.py").write_text("")
    (tmp_path / "src/calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "shop.py").write_text(
        "class Cart:\n    def add(self, x):\n        pass\n\n\nclass Item:\n"
        "    def price(self):\n        return 1\n\n\nclass A(B):\n    pass\n\n\n"
        "class B(A):\n    pass\n"
    )
    (tmp_path / "test_all.py").write_text(
        "from src.calc import add\nfrom shop import *\n\n\ndef test_add():\n"
        "    assert add(1, 1) == 2\n\n\ndef test_cart(items):\n    c = Cart()\n    c.add(1)\n"
        "    for c in items:\n        c.price()\n\n\ndef test_cycle():\n    A().missing()\n"
    )
    locator = Locator(_index(tmp_path), is_test)

    def called(test: str) -> list[str]:
        return [f.name for f in locator.called_by([f"test_all.{test}"], set())]

    assert called("test_add") == ["add"]
    assert called("test_cart") == ["Cart.add", "Item.price"]  # `c.price()`: *.price
    assert called("test_cycle") == []


def test_a_function_passed_as_a_value_counts_as_called() -> None:
    """`partial(convert, ...)` and `key=rank` call the function later, where static
    analysis cannot see it; a call is recorded once, a parameter is no function."""
    source = (
        "from functools import partial\n\n\ndef convert(x):\n    return x\n\n\n"
        "def rank(x):\n    return x\n\n\ndef f(items, x):\n    rank(1)\n"
        "    g = partial(convert, 2)\n    return sorted(items, key=rank), x\n"
    )
    _, calls = python_calls("m.py", source)
    assert [(c.callee, c.line) for c in calls] == [
        ("m.rank", 13), ("functools.partial", 14), ("m.convert", 14), ("sorted", 15),
        ("m.rank", 15),
    ]  # fmt: skip


def test_a_local_named_like_a_module_function_is_no_reference_to_it() -> None:
    """Review cases: a loop variable, a parameter, a comprehension's and a lambda's names
    that shadow the module's functions are no calls of them; `f(f)` is one call."""
    source = (
        "def index():\n    pass\n\n\ndef key():\n    pass\n\n\n"
        "def find(items):\n    for index, item in enumerate(items):\n        pass\n"
        "    return index\n\n\n"
        "def sort_by(rows, key=None):\n    key()\n    return sorted(rows, key=key)\n\n\n"
        "def pick(rows):\n    return [index * 2 for index in rows], (lambda key: key[1])\n\n\n"
        "def both():\n    return index(index)\n"
    )
    _, calls = python_calls("m.py", source)
    pairs = [(c.caller, c.callee) for c in calls]
    assert ("m.find", "m.index") not in pairs and ("m.pick", "m.index") not in pairs
    assert ("m.sort_by", "m.key") not in pairs and ("m.pick", "m.key") not in pairs
    assert pairs.count(("m.both", "m.index")) == 1


def test_the_failing_tests_the_task_names_lead() -> None:
    from codur.agents.locate import named_first

    failing = ["tests.test_a.test_wanted", "tests.test_files.test_iter_find_files"]
    assert named_first(failing, "tests/test_a.py::test_wanted fails: fix it") == failing[:1]
    assert named_first(failing, "the totals are wrong") == failing  # none named: all


FORMATS = """from functools import partial


class Format:
    def __init__(self, row):
        self.row = row


def _plain_row(cells, sep=" "):
    return sep.join(cells)


def _csv_row(cells):
    return _join(";", cells)


def _join(sep, cells):
    return sep.join(cells)


def _unused(cells):
    return cells


FORMATS = {
    "plain": Format(row=_plain_row),
    "csv": Format(row=partial(_csv_row)),
    "excel": Format(row=_csv_row),
}


def render(rows, fmt="plain"):
    return "\\n".join(FORMATS[fmt].row(r) for r in rows)


NAMES = {"name": (_plain_row, _join)}
OTHER = {"name": (_unused, render)}
"""


def test_a_function_the_failing_test_selects_by_a_table_key_follows_its_calls(
    tmp_path: Path,
) -> None:
    (tmp_path / "fmt.py").write_text(FORMATS)
    (tmp_path / "test_fmt.py").write_text(
        "from fmt import render\n\n\ndef test_csv():\n"
        "    assert render([['a', 'b']], fmt='csv') == 'a,b'\n"
        "    assert render([['a']], fmt='excel') == render([['a']], fmt='csv')\n"
        "    assert {'name': 1}  # a key of tables holding four functions selects none\n"
    )
    verdict = _verdict(["test_fmt.py::test_csv"], [])
    read = lambda path: (tmp_path / path).read_text()  # noqa: E731
    found = Locator(_index(tmp_path), is_test, read).rank("csv output is wrong", verdict)
    assert [(f.name, f.why) for f in found[:2]] == [
        ("render", "the failing test calls it"),
        ("_csv_row", "the failing test selects it by 'csv'"),
    ]
    assert not any(f.why.startswith("the failing test selects") for f in found[2:])
    assert [f.name for f in found].count("_csv_row") == 1  # selected by two keys: once
    assert ("_join", "the failing test calls it (indirectly)") in [(f.name, f.why) for f in found]
    unread = Locator(_index(tmp_path), is_test).rank("csv output is wrong", verdict)
    assert not any(f.why.startswith("the failing test selects") for f in unread)


DOCS = """from __future__ import annotations


class Container:
    def append(self, key, value):
        self.body.append((key, value))

    def __setitem__(self, key, value):
        self.append(key, value)


class Document(Container):
    def as_string(self):
        return "".join(f"{k} = {v}" for k, v in self.body)


class Parser:
    def __init__(self, text):
        self.text = text

    def parse(self) -> Document:
        return Document()


def parse(text: str) -> Document | None:
    return Parser(text).parse()


def loads(text) -> "Document":
    return parse(text)
"""


def test_what_a_call_returns_has_the_class_its_annotation_names(tmp_path: Path) -> None:
    (tmp_path / "docs.py").write_text(DOCS)
    (tmp_path / "test_docs.py").write_text(
        "from docs import loads, parse\n\n\ndef test_set():\n    doc = parse('')\n"
        "    doc['a'] = 1\n    assert loads('').as_string() == 'a = 1'\n"
    )
    defs, calls = python_calls("docs.py", DOCS)
    returns = {d.qualname: d.returns for d in defs if d.returns}
    assert returns == {
        "docs.Parser.parse": "docs.Document", "docs.parse": "docs.Document",
        "docs.loads": "docs.Document",
    }  # fmt: skip
    assert "docs.Parser.parse" in [c.callee for c in calls]  # Parser(text).parse()
    found = Locator(_index(tmp_path), is_test).rank("x", _verdict(["test_docs.py::test_set"], []))
    direct = [f.name for f in found if f.why == "the failing test calls it"]
    # doc['a'] = 1: Document's inherited __setitem__; loads('').as_string(): Document's
    assert sorted(direct) == ["Container.__setitem__", "Document.as_string", "loads", "parse"]
    deeper = [f.name for f in found if f.why == "the failing test calls it (indirectly)"]
    assert sorted(deeper[:2]) == ["Parser.__init__", "Parser.parse"]
    assert "Container.append" in deeper


def test_return_annotations_a_class_is_read_from_and_those_that_name_none(
    tmp_path: Path,
) -> None:
    source = (
        "import typing as typ\nfrom typing import Optional, TypeVar\nT = TypeVar('T')\n\n\n"
        "class Node:\n    def copy(self) -> Self:\n        return self\n\n\n"
        "def a() -> Optional[Node]: ...\ndef b() -> typ.Optional['Node']: ...\n"
        "def c() -> T: ...\ndef d() -> list[Node]: ...\ndef e() -> Node | int: ...\n"
        "def rows(path):\n    return open(path)\n\n\n"
        "def use():\n    r = rows('x')\n    len(r)\n    r.close()\n\n\n"
        "class Cache:\n    def __len__(self):\n        return 0\n\n    def close(self): ...\n"
    )
    defs, calls = python_calls("m.py", source)
    returns = {d.qualname: d.returns for d in defs if d.kind == "def" and "Cache" not in d.qualname}
    assert returns == {
        "m.Node.copy": "m.Node", "m.a": "m.Node", "m.b": "m.Node", "m.c": "", "m.d": "",
        "m.e": "", "m.rows": "", "m.use": "",
    }  # fmt: skip
    uses = [c.callee for c in calls if c.caller == "m.use"]
    assert uses == ["m.rows", "len", "m.rows().__len__", "m.rows().close"]
    (tmp_path / "m.py").write_text(source)
    resolver = Resolver(_index(tmp_path))
    assert resolver.targets("m.a().copy")[0].qualname == "m.Node.copy"
    # what rows() returns is unknown: len() of it is no guess, a named method is
    assert resolver.targets("m.rows().__len__") == []
    assert [d.qualname for d in resolver.targets("m.rows().close")] == ["m.Cache.close"]
