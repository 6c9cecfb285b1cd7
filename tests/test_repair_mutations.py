"""Mutation operators for the repair search: each edit is one span of the original source."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from codur.repair.mutations import (
    OPERATORS,
    Mutation,
    Source,
    apply_mutations,
    mutations,
    overlaps,
)


def mutated(source: str, operator: str | None = None, **kwargs) -> list[str]:
    """Every mutated version of `source` (by one operator, or all)."""
    ops = None if operator is None else [operator]
    return [
        apply_mutations(source, [e]) for e in mutations("m.py", source, operators=ops, **kwargs)
    ]


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_registry_holds_exactly_the_named_operators():
    assert set(OPERATORS) == {
        "off_by_one", "comparison", "boolean", "arithmetic", "associativity", "negate",
        "guard", "constant", "swap_args", "wrong_variable", "exception", "fstring",
        "mutable_default",
    }  # fmt: skip


def test_unknown_operator_is_an_error():
    with pytest.raises(ValueError, match="nope"):
        mutations("m.py", "x = 1\n", operators=["nope"])


# --- one test per operator ------------------------------------------------------------


def test_off_by_one_range_arguments():
    src = code("""
        def f(n, xs):
            for i in range(n):
                pass
            for j in range(1, len(xs) - 1):
                pass
            return range(n + 1)
    """)
    out = mutated(src, "off_by_one")
    assert src.replace("range(n)", "range(n + 1)") in out
    assert src.replace("range(n)", "range(n - 1)") in out
    assert src.replace("range(1, len(xs) - 1)", "range(1, len(xs))") in out
    assert src.replace("range(1, len(xs) - 1)", "range(0, len(xs) - 1)") in out
    assert src.replace("range(1, len(xs) - 1)", "range(2, len(xs) - 1)") in out
    assert src.replace("range(n + 1)", "range(n)") in out  # `x + 1` - 1 simplifies


def test_off_by_one_slices_and_indices():
    src = 'head = xs[:-1]\ntail = xs[1:]\nlast = xs[i]\nkey = d["k"]\nmid = xs[(a + b)]\n'
    out = mutated(src, "off_by_one")
    assert src.replace("xs[:-1]", "xs[:]") in out
    assert src.replace("xs[:-1]", "xs[:0]") in out
    assert src.replace("xs[:-1]", "xs[:-2]") in out
    assert src.replace("xs[1:]", "xs[:]") in out
    assert src.replace("xs[1:]", "xs[2:]") in out
    assert src.replace("xs[i]", "xs[i + 1]") in out
    assert src.replace("xs[i]", "xs[i - 1]") in out
    assert src.replace("xs[(a + b)]", "xs[((a + b) + 1)]") in out
    assert not any('d["k"]' not in version for version in out)  # string keys left alone


def test_comparison_swaps_each_operator_of_a_chain():
    src = "ok = lo < x <= hi\n"
    out = mutated(src, "comparison")
    assert sorted(out) == sorted(
        [
            "ok = lo <= x <= hi\n",
            "ok = lo > x <= hi\n",
            "ok = lo < x < hi\n",
            "ok = lo < x >= hi\n",
        ]
    )


def test_comparison_word_operators_and_comments_in_the_gap():
    src = code("""
        a = x not in seen
        b = y is None
        c = (left  # is left < right?
             <= right)
    """)
    out = mutated(src, "comparison")
    assert src.replace("x not in seen", "x in seen") in out
    assert src.replace("y is None", "y is not None") in out
    assert src.replace("     <= right", "     < right") in out
    assert src.replace("     <= right", "     >= right") in out
    assert all("# is left < right?" in version for version in out)


def test_boolean_swaps_one_connective_at_a_time_and_drops_not():
    src = "if a and b and not (c or d):\n    pass\n"
    out = mutated(src, "boolean")
    assert "if a or b and not (c or d):\n    pass\n" in out
    assert "if a and b or not (c or d):\n    pass\n" in out
    assert "if a and b and not (c and d):\n    pass\n" in out
    assert "if a and b and (c or d):\n    pass\n" in out  # keeps the parentheses


def test_arithmetic_operator_swaps_augassign_and_dropped_operands():
    src = "total += price * qty\nrate = pct / 100\nlabel = '%s' % name\n"
    out = mutated(src, "arithmetic")
    assert src.replace("total +=", "total -=") in out
    assert src.replace("price * qty", "price / qty") in out
    assert src.replace("price * qty", "price + qty") in out
    assert src.replace("pct / 100", "pct // 100") in out
    assert src.replace("pct / 100", "pct") in out  # the stray `/ 100` dropped
    assert src.replace("pct / 100", "100") in out
    assert src.replace("'%s' % name", "'%s' // name") not in out  # string formatting


def test_arithmetic_drop_keeps_operand_parentheses():
    src = "y = x - (a + b) * c\n"
    out = mutated(src, "arithmetic")
    assert "y = x - (a + b)\n" in out
    assert "y = x - a + b\n" not in out


def test_associativity_regroups_both_ways():
    src = "a = x - y - z\nb = x - (y - z)\nc = x ** y ** z\n"
    out = mutated(src, "associativity")
    assert src.replace("x - y - z", "x - (y - z)") in out
    assert src.replace("x - (y - z)", "(x - y) - z") in out
    assert all("c = x ** y ** z" in version for version in out)  # ** is left alone


def test_negate_tests_of_if_while_ternary_assert():
    src = code("""
        if n < 3:
            pass
        elif done:
            pass
        while not ready:
            pass
        v = a if flag else b
        assert x == y
    """)
    out = mutated(src, "negate")
    assert src.replace("if n < 3:", "if not (n < 3):") in out
    assert src.replace("elif done:", "elif not done:") in out
    assert src.replace("while not ready:", "while ready:") in out
    assert src.replace("a if flag else b", "a if not flag else b") in out
    assert src.replace("assert x == y", "assert not (x == y)") in out


def test_guard_removes_early_exits():
    src = code("""
        def f(xs):
            for x in xs:
                if x < 0:  # skip negatives
                    continue
                if x > 9:
                    break
            return xs
    """)
    out = mutated(src, "guard")
    assert src.replace("if x < 0:  # skip negatives\n            continue", "pass") in out
    assert src.replace("            break", "            pass") in out


def test_constant_ints_and_bools():
    src = "limit = 10\nflag = True\n"
    out = mutated(src, "constant")
    assert sorted(out) == sorted(
        ["limit = 11\nflag = True\n", "limit = 9\nflag = True\n", "limit = 10\nflag = False\n"]
    )


def test_constant_skips_no_op_operands():
    src = "a = n - 1\nb = 2 * x\nc = 1 + y\n"
    out = mutated(src, "constant")
    assert src.replace("n - 1", "n - 2") in out
    assert src.replace("2 * x", "3 * x") in out
    assert src.replace("1 + y", "2 + y") in out
    assert not {src.replace("n - 1", "n - 0"), src.replace("2 * x", "1 * x")} & set(out)
    assert src.replace("1 + y", "0 + y") not in out


def test_swap_args_and_non_commutative_operands():
    src = "r = pow(base, exp, mod)\nd = a - b * c\n"
    out = mutated(src, "swap_args")
    assert src.replace("pow(base, exp, mod)", "pow(exp, base, mod)") in out
    assert src.replace("pow(base, exp, mod)", "pow(base, mod, exp)") in out
    assert src.replace("a - b * c", "(b * c) - a") in out


def test_wrong_variable_uses_names_bound_in_the_function():
    src = code("""
        import os

        def area(width, height):
            side = width
            return len(os.sep) * side * helper(height)
    """)
    out = mutated(src, "wrong_variable")
    assert src.replace("* side *", "* height *") in out
    assert src.replace("side = width", "side = height") in out
    # builtins, imports and callees are not touched; def/import names are not offered
    assert all("len(os.sep)" in version and "helper(" in version for version in out)
    assert not any("area" in version.split("def area")[1] for version in out)


def test_wrong_variable_at_module_level():
    src = "rows = 2\ncols = 3\nprint(rows)\n"
    assert "rows = 2\ncols = 3\nprint(cols)\n" in mutated(src, "wrong_variable")


def test_exception_names_from_the_traceback():
    src = code("""
        try:
            v = table[key]
        except IndexError:
            v = None
        try:
            w = 1 / n
        except (TypeError, ValueError):
            w = 0
    """)
    out = mutated(src, "exception", exception_names=["KeyError"])
    assert src.replace("except IndexError:", "except KeyError:") in out
    assert src.replace("except IndexError:", "except Exception:") in out
    assert src.replace("except IndexError:", "except (IndexError, KeyError):") in out
    assert src.replace("(TypeError, ValueError)", "(TypeError, KeyError)") in out
    assert src.replace("(TypeError, ValueError)", "(TypeError, ValueError, KeyError)") in out


def test_fstring_adds_the_missing_prefix():
    src = code('''
        def show(n, path):
            """Show {n} things."""
            print("got {n} items in {path.name:>10}")
            print(r"raw {n}")
            print("{} and {x}".format(1, x=2))
            print(b"bytes {n}")
            print("no fields")
    ''')
    out = mutated(src, "fstring")
    assert sorted(out) == sorted(
        [
            src.replace('print("got', 'print(f"got'),
            src.replace('r"raw', 'rf"raw'),
        ]
    )


def test_mutable_default_moves_the_default_into_the_body():
    src = code('''
        class Playlist:
            def __init__(self, name, songs=[], *, tags={}):
                """A named list of songs."""
                # keep the songs
                self.songs = songs
    ''')
    out = mutated(src, "mutable_default")
    assert (
        src.replace("songs=[]", "songs=None").replace(
            "        self.songs",
            "        if songs is None:\n            songs = []\n        self.songs",
        )
        in out
    )
    assert (
        src.replace("tags={}", "tags=None").replace(
            "        self.songs",
            "        if tags is None:\n            tags = {}\n        self.songs",
        )
        in out
    )
    assert len(out) == 2


# --- properties of every mutation -----------------------------------------------------

SAMPLE = code('''
    """A sample with odd formatting:   spacing,  comments and a non-ASCII line (é, 名, 😀)."""
    import math
    LIMIT=10   # upper bound  (keep)


    def score(xs,  scale = 2, seen=[]):
        total=0   # running   total
        for i in range( len(xs)-1 ):
            if xs[i]<0 and not seen:
                continue
            total += xs[i]*scale  /100
        label = "sum {total}"
        try:
            return math.floor(total) if total >= LIMIT else -1
        except ValueError:
            return None
''')


def test_every_result_compiles_differs_and_is_unique():
    edits = mutations("m.py", SAMPLE, exception_names=["KeyError"])
    assert {e.operator for e in edits} == set(OPERATORS)
    results = [apply_mutations(SAMPLE, [e]) for e in edits]
    assert len(set(results)) == len(results)
    for result in results:
        assert result != SAMPLE
        compile(result, "m.py", "exec")


def test_formatting_outside_the_edit_is_kept_byte_for_byte():
    lines = SAMPLE.splitlines(keepends=True)
    for edit in mutations("m.py", SAMPLE, exception_names=["KeyError"]):
        assert SAMPLE[edit.start : edit.end] == edit.old
        new = apply_mutations(SAMPLE, [edit]).splitlines(keepends=True)
        tail = len(lines) - edit.end_line
        assert new[: edit.line - 1] == lines[: edit.line - 1], edit
        assert new[len(new) - tail :] == lines[len(lines) - tail :], edit


def test_edit_fields():
    edits = mutations("pkg/m.py", SAMPLE)
    for edit in edits:
        assert edit.path == "pkg/m.py"
        assert edit.operator in OPERATORS
        assert 1 <= edit.line <= edit.end_line
        assert edit.description.startswith(f"line {edit.line}: ")
        assert "\n" not in edit.description and len(edit.description) < 120
    (lt,) = [
        e for e in mutations("m.py", "ok = a < b\n", operators=["comparison"]) if "<=" in e.text
    ]
    assert (lt.old, lt.text, lt.size, lt.line) == ("<", "<=", 1, 1)
    assert lt.description == "line 1: `a < b` -> `a <= b`"


@pytest.mark.parametrize(
    "prefix", ['s = "é"; ', 's = "名字"; ', 's = "😀"; ', "# é\n", 'x = "\\u00e9"; ']
)
def test_non_ascii_text_before_the_operator(prefix):
    src = prefix + "x = a < b\n"
    out = mutated(src, "comparison")
    assert prefix + "x = a <= b\n" in out
    assert prefix + "x = a > b\n" in out


def test_non_ascii_inside_mutated_nodes():
    src = 'def f(ß, ñ):\n    return "é" + ß - ñ\n'
    out = mutated(src)
    assert 'def f(ß, ñ):\n    return "é" + ß + ñ\n' in out
    assert 'def f(ß, ñ):\n    return "é" + ñ - ñ\n' in out


def test_crlf_and_cr_newlines_are_kept():
    src = "x = 1\r\nif x < 2:\r\n    y = 3\r\n"
    out = mutated(src, "comparison")
    assert "x = 1\r\nif x <= 2:\r\n    y = 3\r\n" in out
    src = "def f(a=[]):\r\n    return a\r\n"
    assert "def f(a=None):\r\n    if a is None:\r\n        a = []\r\n    return a\r\n" in mutated(
        src, "mutable_default"
    )


def test_unparsable_source_gives_nothing():
    assert mutations("m.py", "def f(:\n    return\n") == []
    assert mutations("m.py", "x = 1\x00\n") == []


def test_broken_noop_and_duplicate_edits_are_dropped(monkeypatch):
    src = "x = 1\n"

    def fake(tree, source):
        yield source.edit(tree.body[0], 4, 5, "(")  # does not compile
        yield source.edit(tree.body[0], 4, 5, "1")  # changes nothing
        yield source.edit(tree.body[0], 0, 5, "x = 2")  # same result as the next, but bigger
        yield source.edit(tree.body[0], 4, 5, "2")

    monkeypatch.setitem(OPERATORS, "fake", fake)
    (edit,) = mutations("m.py", src, operators=["fake"])
    assert (edit.start, edit.end, edit.text, edit.size) == (4, 5, "2", 1)


def test_guard_result_must_compile():
    src = "for x in xs:\n    if x:\n        break\n"
    assert mutated(src, "guard") == [
        "for x in xs:\n    pass\n",
        "for x in xs:\n    if x:\n        pass\n",
    ]


# --- apply_mutations / overlaps -----------------------------------------------------------


def _edit(start: int, end: int, text: str, path: str = "m.py") -> Mutation:
    return Mutation(path, start, end, text, 1, 1, "constant", "test", old="")


def test_apply_edits_in_any_order():
    src = "a = 1 + 2\n"
    one, two = _edit(4, 5, "10"), _edit(8, 9, "20")
    assert apply_mutations(src, [one, two]) == apply_mutations(src, [two, one]) == "a = 10 + 20\n"
    assert apply_mutations(src, []) == src


def test_apply_edits_rejects_overlaps():
    src = "a = 1 + 2\n"
    with pytest.raises(ValueError, match="overlap"):
        apply_mutations(src, [_edit(4, 7, "x"), _edit(6, 9, "y")])
    with pytest.raises(ValueError, match="overlap"):
        apply_mutations(src, [_edit(4, 4, "x"), _edit(4, 4, "y")])  # two inserts at one point


def test_apply_edits_checks_the_old_text():
    edit = Mutation("m.py", 0, 1, "b", 1, 1, "constant", "test", old="a")
    assert apply_mutations("a", [edit]) == "b"
    with pytest.raises(ValueError):
        apply_mutations("z", [edit])


def test_overlaps():
    assert overlaps(_edit(0, 5, ""), _edit(4, 6, ""))
    assert not overlaps(_edit(0, 5, ""), _edit(5, 6, ""))
    assert not overlaps(_edit(0, 5, ""), _edit(0, 5, "", path="other.py"))
    edits = mutations("m.py", "if a < b:\n    pass\n")
    compare = next(e for e in edits if e.operator == "comparison")
    negated = next(e for e in edits if e.operator == "negate")
    assert overlaps(compare, negated)
    with pytest.raises(ValueError):
        apply_mutations("if a < b:\n    pass\n", [compare, negated])


def test_source_offsets_convert_utf8_columns():
    src = Source("m.py", 's = "é😀"; x = 1\n')
    assert src.offset(1, len('s = "é😀"; '.encode())) == len('s = "é😀"; ')
    assert src.line_at(0) == 1


# --- end to end -----------------------------------------------------------------------


def _run(source: str, call: str):
    namespace: dict = {}
    exec(compile(source, "m.py", "exec"), namespace)
    return eval(call, namespace)


def test_some_mutation_fixes_an_off_by_one_bug():
    buggy = code("""
        def total(xs):
            s = 0
            for i in range(len(xs) - 1):
                s += xs[i]
            return s
    """)
    assert _run(buggy, "total([1, 2, 3])") == 3
    fixes = [
        e
        for e in mutations("m.py", buggy)
        if _safe_run(apply_mutations(buggy, [e]), "total([1, 2, 3])") == 6
    ]
    assert any(e.operator == "off_by_one" and "range(len(xs))" in e.description for e in fixes)


def _safe_run(source: str, call: str):
    try:
        return _run(source, call)
    except (ArithmeticError, LookupError, NameError, TypeError, ValueError):
        return None


def test_operators_module_can_be_imported_first():
    script = "import codur.repair.operators, codur.repair.mutations as m; print(len(m.OPERATORS))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "13"


def test_wrong_variable_offers_comprehension_variables() -> None:
    src = "def days(year, months):\n    return [year * 2 for m in months]\n"
    assert "def days(year, months):\n    return [m * 2 for m in months]\n" in mutated(
        src, "wrong_variable"
    )
