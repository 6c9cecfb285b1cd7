"""Reading edits out of model replies, in both formats, and rejecting broken ones."""

from __future__ import annotations

import pytest

from codur.edits import EDIT_FORMATS, EditError, check_syntax, parse_edits
from codur.task import file_refs

FILES = {"main.py": "def f():\n    return 1 - 2\n", "util/helpers.py": "X = 1\n"}
SCRIPTS = {"main.py": "print(0)\n", "util/helpers.py": "X = 1\n"}


def test_whole_file_by_label_and_lone_block() -> None:
    reply = "Fix:\n\n**util/helpers.py**\n```python\nX = 2\n```\n\nmain.py:\n```\nprint(1)\n```\n"
    edits = {e.path: e.content for e in parse_edits(reply, SCRIPTS, "whole_file")}
    assert edits == {"util/helpers.py": "X = 2\n", "main.py": "print(1)\n"}
    lone = parse_edits("```python\nprint(2)\n```", {"main.py": ""}, "whole_file")
    assert [(e.path, e.content) for e in lone] == [("main.py", "print(2)\n")]
    info = parse_edits("```python main.py\nprint(3)\n```", SCRIPTS, "whole_file")
    assert info[0].path == "main.py"
    # a small model's habit: the path and a second fence repeated inside the block
    echo = parse_edits("```python\nmain.py\n```python\nprint(4)\n```\n", SCRIPTS, "whole_file")
    assert [(e.path, e.content) for e in echo] == [("main.py", "print(4)\n")]


def test_search_replace() -> None:
    reply = (
        "main.py\n<<<<<<< SEARCH\n    return 1 - 2\n=======\n    return 1 + 2\n>>>>>>> REPLACE\n"
    )
    edits = parse_edits(reply, FILES, "search_replace")
    assert edits[0].content == "def f():\n    return 1 + 2\n"
    missing = reply.replace("return 1 - 2\n=", "return 9\n=")
    with pytest.raises(EditError, match="SEARCH text not found in main.py"):
        parse_edits(missing, FILES, "search_replace")


def test_no_edits_and_syntax_errors() -> None:
    assert parse_edits("I think it is fine.", FILES, "whole_file") == []
    bad = parse_edits("main.py\n```python\ndef f(:\n```", FILES, "whole_file")[0]
    with pytest.raises(EditError, match="main.py:1: syntax error"):
        check_syntax(bad)


def test_file_refs() -> None:
    assert file_refs("fix @main.py and @pkg/util.py, not me@example.com; @main.py") == [
        "main.py",
        "pkg/util.py",
    ]
    assert file_refs("explain (@a.py)") == ["a.py"]
    # taken too, so they are refused in one line rather than silently ignored
    assert file_refs("fix @~/.bashrc and @. then @src/") == ["~/.bashrc", ".", "src/"]


def test_a_block_is_a_whole_file_or_a_fragment_by_its_definitions() -> None:
    original = "def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\nprint(f() + g())\n"
    files = {"main.py": original}
    # only g: a fragment, merged by name; the rest of the file stays
    merged = parse_edits("main.py\n```python\ndef g():\n    return 3\n```", files, "whole_file")
    assert merged[0].content == original.replace("return 2", "return 3")
    assert merged[0].how == "merged" and merged[0].replaced == ["g"]
    # every definition and the driver: the whole new file, however short
    whole = "def f():\n    return 1\ndef g():\n    return 3\nprint(f() + g())\n"
    edits = parse_edits(f"main.py\n```python\n{whole}```", files, "whole_file")
    assert edits[0].content == whole and edits[0].how == "whole_file"
    # a file with no definitions has nothing to merge into: the block is the new file
    script = "".join(f"line_{n} = {n}\n" for n in range(20))
    edits = parse_edits("main.py\n```python\nline_3 = 4\n```", {"main.py": script}, "whole_file")
    assert edits[0].content == "line_3 = 4\n" and edits[0].how == "whole_file"


def test_a_path_comment_on_top_is_an_echo_unless_the_file_had_it() -> None:
    reply = "```python\n# main.py\nprint(1)\n```"
    echoed = parse_edits(reply, {"main.py": "print(0)\n"}, "whole_file")
    assert echoed[0].content == "print(1)\n"
    kept = parse_edits(reply, {"main.py": "# main.py\nprint(0)\n"}, "whole_file")
    assert kept[0].content == "# main.py\nprint(1)\n"
    other = parse_edits("```python\n# helper\nprint(1)\n```", {"main.py": ""}, "whole_file")
    assert other[0].content == "# helper\nprint(1)\n"


def test_a_block_whose_first_line_names_a_shown_file_is_for_it() -> None:
    files = {"pkg/a.py": "def f():\n    return 1\n", "pkg/b.py": "def g():\n    return 2\n"}
    commented = "Fixed:\n```python\n# pkg/b.py\ndef g():\n    return 3\n```\n"
    (edit,) = parse_edits(commented, files, "whole_file")
    assert (edit.path, edit.content) == ("pkg/b.py", "def g():\n    return 3\n")
    # the opener repeated after the path comment (seen from a 1.5B model)
    doubled = "Fixed:\n```python\n# pkg/b.py\n```python\ndef g():\n    return 4\n```\n"
    (edit,) = parse_edits(doubled, files, "whole_file")
    assert (edit.path, edit.content) == ("pkg/b.py", "def g():\n    return 4\n")
    labelled = "```\n# pkg/b.py\n```\n```python\ndef g():\n    return 5\n```\n"
    (edit,) = parse_edits(labelled, files, "whole_file")
    assert (edit.path, edit.content) == ("pkg/b.py", "def g():\n    return 5\n")
    # one file shown: a snippet headed by its path is no edit, the longest block is
    one = {"main.py": "def f():\n    return 1\n\n\nprint(f())\n"}
    fix = "def f():\n    return 2\n\n\nprint(f())\n"
    for reply in (
        f"```\n# main.py\n```\n```python\n{fix}```\n",
        f"Run it:\n```python\n# main.py\nprint(f())\n```\nFixed:\n```python\n{fix}```\n",
    ):
        (edit,) = parse_edits(reply, one, "whole_file")
        assert (edit.path, edit.content) == ("main.py", fix)


PROGRAM = "def f():\n    return 1 - 2\n\n\ndef g():\n    return 0\n\n\nprint(f() + g())\n"
SEARCH = "<<<<<<< SEARCH\n    return 1 - 2\n=======\n    return 1 + 2\n>>>>>>> REPLACE\n"
FIXED = PROGRAM.replace("1 - 2", "1 + 2")


@pytest.mark.parametrize("fmt", ["whole_file", "search_replace", "functions"])
def test_every_format_takes_every_reply_shape(fmt: str) -> None:
    files = {"main.py": PROGRAM}
    function = "def f():\n    return 1 + 2\n"
    shapes = {
        "merged": f"The sign is wrong.\n\nmain.py\n```python\n{function}```\n",
        "whole_file": f"The sign is wrong.\n\n```python\n{FIXED}```\n",
        "search_replace": f"The sign is wrong.\n\nmain.py\n{SEARCH}",
    }
    for how, reply in shapes.items():
        (edit,) = parse_edits(reply, files, fmt)
        assert (edit.path, edit.content, edit.how) == ("main.py", FIXED, how)


def test_a_fenced_search_replace_block_is_not_a_file() -> None:
    files = {"main.py": PROGRAM, "notes.md": "# Notes\n"}
    fenced = f"main.py\n```python\n{SEARCH}```\n"
    for fmt in ("whole_file", "search_replace"):
        (edit,) = parse_edits(fenced, files, fmt)
        assert (edit.content, edit.how) == (FIXED, "search_replace")
    # a fence inside a SEARCH/REPLACE block (a markdown file's) is not a block either
    markdown = "notes.md\n<<<<<<< SEARCH\n# Notes\n=======\n# Notes\n```\nx\n```\n>>>>>>> REPLACE\n"
    (edit,) = parse_edits(markdown, files, "whole_file")
    assert edit.content == "# Notes\n```\nx\n```\n"


def test_a_block_shown_beside_search_replace_for_the_same_file_is_an_illustration() -> None:
    reply = f"The current code:\n\n```python\ndef f():\n    return 1 - 2\n```\n\nmain.py\n{SEARCH}"
    (edit,) = parse_edits(reply, {"main.py": PROGRAM}, "search_replace")
    assert edit.content == FIXED
    # other files' blocks still apply
    both = f"{reply}\nutil/helpers.py\n```python\nX = 2\n```\n"
    edits = {e.path: e.how for e in parse_edits(both, {**FILES, "main.py": PROGRAM}, "whole_file")}
    assert edits == {"main.py": "search_replace", "util/helpers.py": "whole_file"}


def test_non_python_blocks_are_whole_files() -> None:
    files = {"notes.md": "# Notes\n\ndef f():\n    pass\n"}
    (edit,) = parse_edits("notes.md\n```\ndef g():\n    pass\n```\n", files, "functions")
    assert (edit.content, edit.how) == ("def g():\n    pass\n", "whole_file")


@pytest.mark.parametrize(
    ("original", "written"),
    [
        ("x = 1\nprint(x)", "x = 2\nprint(x)"),  # no final newline: none added
        ("x = 1\nprint(x)\n", "x = 2\nprint(x)\n"),
        ("x = 1\r\nprint(x)\r\n", "x = 2\r\nprint(x)\r\n"),  # CRLF stays CRLF
    ],
)
def test_a_whole_file_keeps_the_files_line_breaks_and_final_newline(
    original: str, written: str
) -> None:
    for path in ("a.py", "a.txt"):
        trailing = () if original.endswith("\n") else ("x = 2\nprint(x)\n\n",)
        for body in ("x = 2\nprint(x)\n", *trailing):
            reply = f"{path}\n```\n{body}```"
            edits = parse_edits(reply, {path: original}, "whole_file")
            assert [e.content for e in edits] == [written]


def test_every_edit_format_has_a_prompt_and_a_config_value() -> None:
    from typing import get_args

    from codur.agents.prompting import EDIT_PROMPTS
    from codur.config.schema import LLMProfile
    from codur.promptbook import PromptBook

    allowed = get_args(LLMProfile.model_fields["edit_format"].annotation)
    assert set(EDIT_FORMATS) == set(EDIT_PROMPTS) == set(allowed)
    book = PromptBook()
    assert all(book.render(name).startswith("Answer format:") for name in EDIT_PROMPTS.values())
    with pytest.raises(ValueError, match="unknown edit format 'diff'"):
        parse_edits("", FILES, "diff")


ITEMS = (
    "class AoT:\n    def set(self, v):\n        return v\n\n    def get(self):\n        return 1\n"
    "\n\ndef merge(a, b):\n    return b\n"
)
UTILS = "def merge(a, b):\n    return a\n\n\ndef get():\n    return 0\n"


def test_an_unnamed_block_is_for_the_one_shown_file_that_defines_what_it_gives() -> None:
    """Several files shown and blocks with no path: each is for the one file defining a
    function or class it gives (a top-level function there, a method given bare, a
    class; the prose naming the file is not read), the longest for each file; a name
    two files define, or none does, leaves the block unread."""
    files = {"pkg/items.py": ITEMS, "pkg/utils.py": UTILS}
    fixed = "class AoT:\n    def set(self, v):\n        return v + 1\n"
    reply = f"Here's the fixed `set` method of `pkg/items.py`:\n\n```python\n{fixed}```\n"
    (edit,) = parse_edits(reply, files, "functions")
    assert edit.path == "pkg/items.py" and edit.how == "merged"
    assert edit.content == ITEMS.replace("return v\n", "return v + 1\n")
    method = "```python\n    def set(self, v):\n        return v * 2\n```\n"  # a bare method
    assert [e.path for e in parse_edits(method, files, "functions")] == ["pkg/items.py"]
    top = "```python\ndef get():\n    return 5\n```\n"  # utils.get, not the method AoT.get
    assert [e.path for e in parse_edits(top, files, "functions")] == ["pkg/utils.py"]
    helper = "```python\ndef _twice(v):\n    return 2 * v\n\n\ndef get():\n"
    helper += "    return _twice(1)\n```\n"
    (edit,) = parse_edits(helper, files, "functions")
    assert edit.path == "pkg/utils.py" and edit.added == ["_twice"]
    recap = "Fixed:\n" + top + "In short:\n```python\ndef get():\n    ...\n```\n"
    (edit,) = parse_edits(recap, files, "functions")
    assert "return 5" in edit.content  # the longest block, not the last
    both = "```python\ndef merge(a, b):\n    return {**a, **b}\n```\n"
    assert parse_edits(both, files, "functions") == []
    assert parse_edits("```python\ndef other():\n    pass\n```\n", files, "functions") == []


def test_unnamed_blocks_for_two_functions_of_a_file_are_both_applied() -> None:
    """Two unnamed blocks fixing two functions of one file are both edits (only a block
    whose definitions a longer one gives too is a recap); a bare method whose `self` is
    positional-only is still a method."""
    files = {"pkg/items.py": ITEMS, "pkg/utils.py": UTILS}
    reply = (
        "Fix get:\n```python\ndef get():\n    return 1\n```\nand set:\n"
        "```python\n    def set(self, /, v):\n        return v + 1\n```\n"
    )
    edits = {e.path: e.content for e in parse_edits(reply, files, "functions")}
    assert "return 1" in edits["pkg/utils.py"] and "return v + 1" in edits["pkg/items.py"]
    two = "```python\ndef get():\n    return 1\n```\n"
    two += "```python\ndef merge(a, b):\n    return b\n```\n"
    (edit,) = parse_edits(two, {"pkg/utils.py": UTILS, "other.py": "X = 1\n"}, "functions")
    assert "return 1" in edit.content and "return b" in edit.content
