"""Reading edits out of model replies, in both formats, and rejecting broken ones."""

from __future__ import annotations

import pytest

from codur.edits import EditError, check_syntax, parse_edits
from codur.task import file_refs

FILES = {"main.py": "def f():\n    return 1 - 2\n", "util/helpers.py": "X = 1\n"}


def test_whole_file_by_label_and_lone_block() -> None:
    reply = "Fix:\n\n**util/helpers.py**\n```python\nX = 2\n```\n\nmain.py:\n```\nprint(1)\n```\n"
    edits = {e.path: e.content for e in parse_edits(reply, FILES, "whole_file")}
    assert edits == {"util/helpers.py": "X = 2\n", "main.py": "print(1)\n"}
    lone = parse_edits("```python\nprint(2)\n```", {"main.py": ""}, "whole_file")
    assert [(e.path, e.content) for e in lone] == [("main.py", "print(2)\n")]
    info = parse_edits("```python main.py\nprint(3)\n```", FILES, "whole_file")
    assert info[0].path == "main.py"
    # a small model's habit: the path and a second fence repeated inside the block
    echo = parse_edits("```python\nmain.py\n```python\nprint(4)\n```\n", FILES, "whole_file")
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


def test_whole_file_fragment_is_rejected() -> None:
    original = "".join(f"line_{n} = {n}\n" for n in range(20))
    with pytest.raises(EditError, match="has 1 lines but the file has 20"):
        parse_edits("main.py\n```python\nline_3 = 4\n```", {"main.py": original}, "whole_file")
    whole = original.replace("line_3 = 3", "line_3 = 4")
    edits = parse_edits(f"main.py\n```python\n{whole}```", {"main.py": original}, "whole_file")
    assert edits[0].content == whole


def test_a_path_comment_on_top_is_an_echo_unless_the_file_had_it() -> None:
    reply = "```python\n# main.py\nprint(1)\n```"
    echoed = parse_edits(reply, {"main.py": "print(0)\n"}, "whole_file")
    assert echoed[0].content == "print(1)\n"
    kept = parse_edits(reply, {"main.py": "# main.py\nprint(0)\n"}, "whole_file")
    assert kept[0].content == "# main.py\nprint(1)\n"
    other = parse_edits("```python\n# helper\nprint(1)\n```", {"main.py": ""}, "whole_file")
    assert other[0].content == "# helper\nprint(1)\n"
