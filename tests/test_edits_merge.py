"""Function-level edits: a Python block holding only some definitions is merged by name
into the file, and every other byte of the file stays."""

from __future__ import annotations

import contextlib
import io

import pytest

from codur.edits import Edit, EditError, check_syntax, parse_edits
from codur.edits.excerpt import excerpt

# The shape of issue 13's case: a module docstring, a comment, the buggy function, a driver.
DIGITS = '''"""Digit sums of a few numbers.

The driver prints one line per number.
"""

# Sum of the decimal digits of a non-negative integer.
def digit_sum(n):
    total = 0
    while n > 0:
        total += n % 10
        n //= 100
    return total


for number in [7, 38, 493193]:
    print(number, digit_sum(number))
'''
FIXED_FUNCTION = (
    "def digit_sum(n):\n    total = 0\n    while n > 0:\n        total += n % 10\n"
    "        n //= 10\n    return total\n"
)

SHAPES = '''"""Areas of shapes."""


class Shape:
    unit = "cm"

    def __init__(self, size):
        self.size = size

    def area(self):
        return self.size * 2

    def describe(self):
        return f"{self.area()} {self.unit}2"


print(Shape(3).describe())
'''


def merge(block: str, original: str, path: str = "main.py", fmt: str = "whole_file") -> Edit:
    reply = f"Here is the fix.\n\n{path}\n```python\n{block}```\n"
    (edit,) = parse_edits(reply, {path: original}, fmt)
    check_syntax(edit)
    return edit


def output(source: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "main.py", "exec"), {"__name__": "__main__"})
    return out.getvalue()


def test_the_fixed_function_alone_is_merged_into_the_file() -> None:
    assert len(DIGITS.splitlines()) == 16
    reply = f"The loop drops two digits at a time.\n\n```python\n{FIXED_FUNCTION}```\n"
    (edit,) = parse_edits(reply, {"main.py": DIGITS}, "whole_file")
    assert edit.content == DIGITS.replace("n //= 100", "n //= 10")
    assert (edit.how, edit.replaced, edit.added, edit.kept) == ("merged", ["digit_sum"], [], [])
    check_syntax(edit)
    assert output(edit.content) == "7 7\n38 11\n493193 29\n"


def test_an_echoed_driver_is_not_merged_and_is_reported() -> None:
    block = FIXED_FUNCTION + "\n\nprint(digit_sum(123))\nif __name__ == '__main__':\n    pass\n"
    edit = merge(block, DIGITS)
    assert edit.content == DIGITS.replace("n //= 100", "n //= 10")
    assert edit.kept == ["print(digit_sum(123))", "if __name__ == '__main__': ..."]
    assert "not merged print(digit_sum(123))" in edit.summary()


def test_a_whole_file_still_replaces() -> None:
    driver = DIGITS[DIGITS.index("for number") :]
    whole = f'"""Digit sums."""\n\ndef digit_sum(n):\n    return sum(map(int, str(n)))\n\n{driver}'
    edit = merge(whole, DIGITS)
    assert edit.content == whole and edit.how == "whole_file"
    # a whole file that changes only the driver
    counts = DIGITS.replace("[7, 38, 493193]", "[7]").replace('"""Digit', '"""Some digit')
    assert merge(counts, DIGITS).content == counts
    # without the module docstring the file has, it is a fragment: the docstring stays
    edit = merge(whole.split("\n\n", 1)[1], DIGITS)
    assert edit.how == "merged" and edit.content.startswith('"""Digit sums of a few numbers.')


def test_an_example_call_like_the_driver_is_not_taken_for_it() -> None:
    program = "def total(xs):\n    return sum(xs[:-1])\n\nprint(total([1, 2, 3, 4]))\n"
    fixed = "def total(xs):\n    return sum(xs)\n"
    edit = merge(f"{fixed}\nprint(total([1]))\n", program)
    assert edit.content == program.replace("xs[:-1]", "xs") and edit.kept == ["print(total([1]))"]
    # the same block with the driver unchanged is the whole file (and the same result)
    whole = f"{fixed}\nprint(total([1, 2, 3, 4]))\n"
    assert merge(whole, program).how == "whole_file"
    # and a block that changes only the driver is the whole file
    driver = program.replace("4]))", "5]))")
    assert merge(driver, program).content == driver


def test_a_method_alone_in_its_class_merges_method_by_method() -> None:
    block = "class Shape:\n    def area(self):\n        return self.size ** 2\n"
    edit = merge(block, SHAPES)
    assert edit.content == SHAPES.replace("self.size * 2", "self.size ** 2")
    assert edit.replaced == ["Shape.area"]
    assert output(edit.content) == "9 cm2\n"
    # the same method bare, at the top level or still indented as in its class
    for bare in ("def area(self):\n    return self.size ** 2\n", block.split("\n", 1)[1]):
        bare_edit = merge(bare, SHAPES)
        assert bare_edit.content == edit.content and bare_edit.replaced == ["Shape.area"]


def test_a_class_with_all_its_methods_replaces_the_class() -> None:
    block = SHAPES.split("\n\n\n")[1].replace('"cm"', '"mm"').replace("* 2", "** 2") + "\n"
    edit = merge(block, SHAPES)
    assert edit.content == SHAPES.replace('"cm"', '"mm"').replace("* 2", "** 2")
    assert edit.replaced == ["Shape"]


def test_new_methods_and_class_attributes_in_a_partial_class() -> None:
    block = (
        "class Shape:\n    unit = 'mm'\n\n    def area(self):\n        return self.size ** 2\n\n"
        "    def perimeter(self):\n        return 4 * self.size\n"
    )
    edit = merge(block, SHAPES)
    assert edit.added == ["Shape.perimeter"] and edit.kept == []
    assert edit.replaced == ["Shape.unit", "Shape.area"]  # describe() reads self.unit
    assert "        return self.size ** 2\n\n    def perimeter(self):\n" in edit.content
    assert "    unit = 'mm'\n" in edit.content
    example = block.replace("    unit = 'mm'\n", "    label = 'mm'\n")  # read by nothing
    assert merge(example, SHAPES).kept == ["Shape: label = 'mm'"]


def test_a_bare_method_of_several_classes_is_rejected() -> None:
    two = SHAPES + "\n\nclass Square(Shape):\n    def area(self):\n        return 4\n"
    with pytest.raises(EditError, match=r"area\(\), a method of several classes \(Shape, Sq"):
        merge("def area(self):\n    return 1\n", two)


CURRIED = """class Property:
    def __init__(self, fget, doc=None):
        self.fget = fget
        self.doc = doc


class Curry:
    def __init__(self, func, *args):
        if not callable(func):
            raise TypeError("Input must be callable")
        self.func = func
        self.args = args
        self.__doc__ = getattr(None, "__doc__", func)
        self.__name__ = getattr(func, "__name__", "<curry>")
"""


def test_a_bare_method_of_several_classes_goes_to_the_one_it_repeats() -> None:
    """The embedded model fixed toolz's `curry.__init__` as a bare `def __init__` (toolz
    has three `__init__`s): the method whose lines it mostly repeats is the one it fixes."""
    fixed = CURRIED.split("class Curry:\n")[1].replace(
        'getattr(None, "__doc__", func)', 'getattr(func, "__doc__", None)'
    )
    for bare in (fixed, "\n".join(line[4:] for line in fixed.split("\n"))):
        edit = merge(bare, CURRIED)
        assert edit.replaced == ["Curry.__init__"]
        assert edit.content == CURRIED.replace(
            'getattr(None, "__doc__", func)', 'getattr(func, "__doc__", None)'
        )
    unlike = "def __init__(self, x):\n    self.x = x\n"  # like neither: not guessed
    with pytest.raises(EditError, match=r"__init__\(\), a method of several classes"):
        merge(unlike, CURRIED)


def test_a_new_helper_goes_next_to_the_function_that_uses_it() -> None:
    helper = "def _digits(n):\n    return [int(c) for c in str(n)]\n\n\n"
    fixed = "def digit_sum(n):\n    return sum(_digits(n))\n"
    before = merge(helper + fixed, DIGITS)
    assert before.replaced == ["digit_sum"] and before.added == ["_digits"]
    # above the comment that belongs to digit_sum; the driver still comes after both
    assert f'"""\n\n{helper}# Sum of the decimal digits' in before.content
    assert before.content.endswith(
        f"{fixed}\n\nfor number in [7, 38, 493193]:\n    print(number, digit_sum(number))\n"
    )
    after = merge(fixed + "\n\n" + helper, DIGITS)
    assert f"{fixed}\n\n{helper.rstrip()}\n\n\nfor number" in after.content
    assert output(before.content) == output(after.content) == "7 7\n38 11\n493193 29\n"


def test_new_imports_go_to_the_top_once() -> None:
    block = "import math\nfrom math import prod\n\n\ndef digit_sum(n):\n    return math.fsum([n])\n"
    edit = merge(block, DIGITS)
    assert edit.imports == ["import math", "from math import prod"]
    assert 'per number.\n"""\n\nimport math\nfrom math import prod\n\n# Sum' in edit.content
    with_imports = DIGITS.replace('"""\n\n#', '"""\n\nimport math\nimport sys\n\n#')
    again = merge(block, with_imports)
    assert again.imports == ["from math import prod"]
    assert "import math\nimport sys\nfrom math import prod\n\n# Sum" in again.content
    # no docstring, no imports: after a shebang and a header comment, before the code
    script = "#!/usr/bin/env python3\n# Paths.\n\ndef sep():\n    return '/'\n\n\nprint(sep())\n"
    edit = merge("import os\n\n\ndef sep():\n    return os.sep\n", script)
    assert edit.content.startswith("#!/usr/bin/env python3\n# Paths.\n\nimport os\n\ndef sep")


def test_a_block_that_matches_nothing_names_what_was_expected() -> None:
    with pytest.raises(EditError) as err:
        merge("def digit_total(n):\n    return 0\n", DIGITS + "\n\ndef main():\n    pass\n")
    assert str(err.value) == (
        "the block for main.py defines digit_total(), which main.py does not have; give the "
        "complete file, or the changed function(s) among: digit_sum, main"
    )
    with pytest.raises(EditError, match="holds no function or class"):
        merge("print(digit_sum(5))\n", DIGITS)
    # a file that does not exist yet, or is empty, is simply the block
    (new,) = parse_edits("new.py\n```python\ndef f():\n    pass\n```\n", {}, "functions")
    assert (new.path, new.content, new.how) == ("new.py", "def f():\n    pass\n", "whole_file")


def test_crlf_files_keep_their_line_breaks() -> None:
    crlf = DIGITS.replace("\n", "\r\n")
    edit = merge(FIXED_FUNCTION + "\n\ndef extra():\n    pass\n", crlf)
    expected = DIGITS.replace("n //= 100", "n //= 10").replace(
        "    return total\n", "    return total\n\n\ndef extra():\n    pass\n"
    )
    assert edit.content == expected.replace("\n", "\r\n")


def test_decorators_belong_to_their_definition() -> None:
    original = (
        "import functools\n\n\n@functools.lru_cache(maxsize=None)\n@staticmethod\n"
        "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 1)\n\n\n"
        "@functools.cache\ndef other():\n    return 1\n\n\nprint(fib(10))\n"
    )
    block = "@functools.cache\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
    edit = merge(block, original)
    assert edit.content == original.replace(
        "@functools.lru_cache(maxsize=None)\n@staticmethod\ndef fib(n):\n"
        "    return n if n < 2 else fib(n - 1) + fib(n - 1)\n",
        block,
    )


def test_nested_functions_and_a_missing_final_newline() -> None:
    original = "def outer():\n    def inner():\n        return 1\n    return inner()\n\n\nprint(1)"
    block = "def outer():\n    def inner():\n        return 2\n    return inner()\n"
    edit = merge(block, original)
    assert edit.content == original.replace("return 1", "return 2")
    assert edit.replaced == ["outer"]


def test_a_fragment_for_a_file_that_does_not_compile_is_rejected() -> None:
    broken = DIGITS.replace("while n > 0:", "while n > 0") + "\n\ndef main():\n    pass\n"
    with pytest.raises(EditError, match=r"main.py does not compile as it is \(line 9: "):
        merge(FIXED_FUNCTION, broken)
    whole = FIXED_FUNCTION + "\n\ndef main():\n    pass\n\n\nmain()\n"
    assert merge(whole, broken).content == whole


def test_two_blocks_for_one_file_are_merged_in_turn() -> None:
    reply = (
        f"main.py\n```python\n{FIXED_FUNCTION}```\n\nand a helper:\n\n"
        "main.py\n```python\ndef digit_sum(n):\n    return _helper(n)\n\n\n"
        "def _helper(n):\n    return n\n```\n"
    )
    (edit,) = parse_edits(reply, {"main.py": DIGITS}, "functions")
    assert edit.replaced == ["digit_sum", "digit_sum"] and edit.added == ["_helper"]
    assert "    return _helper(n)\n\n\ndef _helper(n):\n    return n\n\n\nfor" in edit.content


def test_a_definition_repeated_in_a_block_counts_once_as_python_runs_it() -> None:
    block = "def digit_sum(n):\n    return 0\n\n\n" + FIXED_FUNCTION
    edit = merge(block, DIGITS)
    assert edit.content == DIGITS.replace("n //= 100", "n //= 10")
    assert edit.replaced == ["digit_sum"]
    # one definition given two ways (the class whole, and its method bare) is refused
    whole_class = SHAPES.split("\n\n\n")[1] + "\n"
    with pytest.raises(EditError, match="changes line 10 of it twice"):
        merge(whole_class + "\n\ndef area(self):\n    return 1\n", SHAPES)


def test_an_example_block_beside_the_fixed_function_is_not_an_edit() -> None:
    for example_first in (False, True):
        blocks = [
            f"main.py\n```python\n{FIXED_FUNCTION}```\n",
            "main.py\n```python\nprint(digit_sum(5))\n```\n",
        ]
        reply = "\n".join(reversed(blocks) if example_first else blocks)
        (edit,) = parse_edits(reply, {"main.py": DIGITS}, "functions")
        assert edit.content == DIGITS.replace("n //= 100", "n //= 10")
        assert edit.kept == ["print(digit_sum(5))"]


def test_a_block_holding_only_the_path_names_the_next_block() -> None:
    from codur.edits import parse_edits

    original = 'def below_zero(ops):\n    """doc"""\n'
    body = 'def below_zero(ops):\n    """doc"""\n    return min(ops) < 0\n'
    reply = f"Implemented.\n\n```\nsolution.py\n```\n\n```python\n{body}```\n"
    (edit,) = parse_edits(reply, {"solution.py": original, "other.py": ""}, "whole_file")
    assert edit.path == "solution.py" and edit.content == body


def test_a_function_abridged_with_a_left_out_lines_line_is_refused() -> None:
    """A file shown in part has `# ... not shown ...` lines between definitions; one a reply
    puts inside a function, or one naming some of a function's lines, or one without line
    numbers right after a function stands for lines the written function would lose.
    Between methods of a class given in part, such a line is only a comment: the class
    merges member by member."""
    abridged = (
        "class Shape:\n    def area(self):\n        # ... lines 8-9 not shown ...\n"
        "        return self.size * 3\n"
    )
    with pytest.raises(EditError, match=r"abridges area\(\)"):
        merge(abridged, SHAPES, fmt="functions")
    nested = "def f():\n    def g():\n        # ... (12 lines not shown) ...\n        pass\n"
    with pytest.raises(EditError, match="would drop the lines"):
        merge(nested, "def f():\n    return 1\n", fmt="functions")  # the whole file too
    five = "def f():\n    a = 1\n    b = 2\n    return a + b\n\n\ndef g():\n    return 0\n"
    tail = "def f():\n    a = 10\n    # ... lines 3-4 not shown ...\n"  # after its last line
    with pytest.raises(EditError, match=r"abridges f\(\)"):
        merge(tail, five, fmt="functions")
    with pytest.raises(EditError, match=r"abridges f\(\)"):
        merge("def f():\n    a = 10\n# ... (2 lines not shown) ...\n", five, fmt="functions")
    in_part = (  # as excerpt(SHAPES, ["Shape.area"]) shows it
        'class Shape:\n    unit = "cm"\n\n    # ... lines 7-9 not shown ...\n    def area(self):\n'
        "        return self.size * 3\n# ... lines 12-17 not shown ...\n"
    )
    edit = merge(in_part, SHAPES, fmt="functions")
    assert edit.content == SHAPES.replace("self.size * 2", "self.size * 3")


def test_left_out_lines_text_in_a_string_or_a_plain_comment_is_code() -> None:
    """Only a comment of the exact left-out-lines form counts: the same words in a string,
    a comment that merely says "not shown", or one the file itself holds are code."""
    printer = 'def show():\n    return """\ndef f():\n    # ... lines 2-3 not shown ...\n"""\n'
    original = printer + "\n\ndef g():\n    return 1\n"
    edit = merge(original.replace("return 1", "return 2"), original)  # the whole file
    assert edit.how == "whole_file" and "return 2" in edit.content
    logged = "def h(p):\n    # ... the password is not shown in the log\n    return 2\n"
    assert "return 2" in merge(logged, "def h(p):\n    return 1\n").content
    own = "def k():\n    # ... (3 lines not shown) ...\n    return 1\n"
    assert "return 5" in merge(own.replace("return 1", "return 5"), own).content


def test_a_copied_view_with_every_definition_is_merged_not_taken_for_the_file() -> None:
    """A reply copying a view that shows every definition but leaves out a module-level
    table: read as the whole file it would drop the table; with its left-out-lines line
    it is a fragment, and the table stays."""
    table = "".join(f"    {n},\n" for n in range(30))
    original = f"SCALE = 2\n\n\ndef f(x):\n    return x + SCALE\n\n\nTABLE = [\n{table}]\n"
    view = "SCALE = 2\n\n\ndef f(x):\n    return x * SCALE\n# ... lines 8-38 not shown ...\n"
    edit = merge(view, original, fmt="functions")
    assert edit.how == "merged"
    assert edit.content == original.replace("x + SCALE", "x * SCALE")


def test_left_out_lines_number_the_file_as_shown_and_a_class_in_part_merges_by_member() -> None:
    """Two blocks for one file: the second's left-out-lines lines number the file as it
    was shown, not as the first block left it. A copied view of a class shown in part
    merges member by member, so the class lines it leaves out (`alias = size`) stay."""
    src = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(6)).rstrip("\n") + "\n"
    first = "def f1(x):\n    y = x * 2\n    y += 1\n    y -= 1\n    return y + 1\n"
    second = "# ... lines 7-16 not shown ...\ndef f4(x):\n    return x + 40\n"
    second += "# ... lines 19-22 not shown ...\n"
    reply = f"m.py\n```python\n{first}```\n\nm.py\n```python\n{second}```\n"
    (edit,) = parse_edits(reply, {"m.py": src}, "functions")
    assert "return x + 40" in edit.content and "y += 1" in edit.content
    box = 'import os\n\n\nclass Box:\n    kind = "box"\n\n    def size(self):\n        return 1\n'
    box += "\n    alias = size\n\n\ndef other():\n    return os.sep\n"
    view = excerpt(box, ["Box.size"]).text
    assert "not shown" in view
    edit = merge(view.replace("return 1", "return 2"), box, fmt="functions")
    assert edit.content == box.replace("return 1", "return 2")


def test_a_copied_view_gets_its_left_out_lines_back() -> None:
    """A view copied with its left-out-lines lines is the file again with the model's
    changes: a changed class line and class attribute of a class shown in part are kept,
    and so are the class lines the view left out."""
    box = 'class Base:\n    pass\n\n\nclass Box(Base):\n    """A box."""\n\n    kind = "box"\n\n'
    box += "    def size(self):\n        return 1\n\n    alias = size\n"
    view = excerpt(box, ["Box.size"]).text
    changed = view.replace("(Base)", "(Base, dict)").replace('"box"', '"crate"')
    edit = merge(changed.replace("return 1", "return 2"), box, fmt="functions")
    want = box.replace("(Base)", "(Base, dict)").replace('"box"', '"crate"')
    assert edit.content == want.replace("return 1", "return 2")


TEXTS = '''"""Text utilities."""
import os

LIMIT = 3


def first(xs):
    return xs[:LIMIT]


def squash(s):
    return s.strip()


print(squash("  a  b "))
'''


def test_constants_the_definitions_read_are_merged() -> None:
    """A fixed function's new module constant is added above it, a changed constant
    replaces the file's, and an example statement of the block is left out (on main the
    constant was dropped, and the function using it was written)."""
    block = (
        "import re\n\n_SPACES = re.compile(r'\\s+')\n\n\n"
        "def squash(s):\n    return _SPACES.sub(' ', s).strip()\n\n\nx = squash(' a ')\n"
    )
    edit = merge(block, TEXTS)
    assert (
        edit.added == ["_SPACES"]
        and edit.replaced == ["squash"]
        and edit.kept == ["x = squash(' a ')"]
    )
    assert "\n\n_SPACES = re.compile(r'\\s+')\n\n\ndef squash(s):\n" in edit.content
    assert output(edit.content) == "a b\n"
    changed = merge("LIMIT = 5\n", TEXTS)  # only the constant: still an edit
    assert changed.content == TEXTS.replace("LIMIT = 3", "LIMIT = 5") and changed.replaced == [
        "LIMIT"
    ]
    same = merge("LIMIT = 3\n\n\ndef first(xs):\n    return list(xs[:LIMIT])\n", TEXTS)
    assert same.replaced == ["first"] and "LIMIT = 3\n" in same.content


EXAMPLES = {  # name: (the file, the block, what is kept out of it, the merged file's output)
    "the driver's data echoed with other values": (
        "def average(numbers):\n    return sum(numbers) / len(numbers) - 1\n\n\n"
        "numbers = [2, 4, 6]\nprint('Average:', average(numbers))\n",
        "def average(numbers):\n    return sum(numbers) / len(numbers)\n\n\n"
        "numbers = [10, 20]\nprint(average(numbers))\n",
        ["numbers = [10, 20]", "print(average(numbers))"],
        "Average: 4.0\n",
    ),
    "an example reading input for a parameter": (
        "def fib(n):\n    a, b = 0, 1\n    for _ in range(n - 1):\n        a, b = b, a + b\n"
        "    return a\n\n\nprint(fib(10))\n",
        "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
        "    return a\n\n\nn = int(input('n: '))\nprint(fib(n))\n",
        ["n = int(input('n: '))", "print(fib(n))"],
        "55\n",
    ),
    "an echoed driver line above a new helper": (
        "def main():\n    return [1, 2, 3]\n\n\nresult = main()\nprint('Result:', result)\n",
        "def main():\n    return double([1, 2, 3])\n\n\nresult = main()\n\n\n"
        "def double(xs):\n    return [x * 2 for x in xs]\n",
        ["result = main()"],
        "Result: [2, 4, 6]\n",
    ),
}


@pytest.mark.parametrize("case", sorted(EXAMPLES))
def test_example_statements_are_not_constants(case: str) -> None:
    """Statements that use the fixed function (a parameter's name, the driver's data) stay
    out, however the functions name their parameters (a review found each merged)."""
    original, block, kept, printed = EXAMPLES[case]
    edit = merge(block, original)
    assert edit.kept == kept
    assert output(edit.content) == printed


def test_a_new_constant_goes_below_the_constants_it_reads() -> None:
    original = (
        "def wrap(text):\n    return text[:8]\n\n\nWIDTH = 10\n\n\n"
        "def main():\n    print(wrap('hello world'))\n\n\nmain()\n"
    )
    block = "MARGIN = WIDTH - 2\n\n\ndef wrap(text):\n    return text[:MARGIN]\n"
    edit = merge(block, original)
    assert edit.added == ["MARGIN"]
    assert "WIDTH = 10\n\n\nMARGIN = WIDTH - 2\n" in edit.content
    assert output(edit.content) == "hello wo\n"
