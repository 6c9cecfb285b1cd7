"""The last way to get a check: a small test the model writes from the task, when the
folder has no expected output or tests and nothing is derivable from the task or the
docstrings. One model call, once per run; the test lives outside the user's tree (a
DerivedCheck runs it from a temporary folder) and is shown in the summary.

A model-written test is weak evidence on its own terms, so it must show the fix: it is
run on the files as the run found them, and if it already passes there, a pass after
the change does not count as verified (see the review node).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from codur.verify.derived import DerivedCheck

if TYPE_CHECKING:
    from codur.session import Session

MAX_FILE_CHARS = 6000
"""A shown file is cut here: the test needs the interface, not every line."""


def usable_test(text: str) -> str | None:
    """The test file in a reply: a python block that parses and defines a test."""
    from codur.edits.fenced import fenced_blocks

    blocks = [body for _, body in fenced_blocks(text, ["test_task.py"])] or [text]
    for body in blocks:
        try:
            tree = ast.parse(body)
        except SyntaxError:
            continue
        tests = [
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test")
        ]
        if tests:
            return body
    return None


def write_test(session: Session, task: str, files: list[str]) -> DerivedCheck | None:
    """Ask the model for a test of `task` over `files` (None: no usable test came back)."""
    shown = "\n\n".join(
        f"{path}\n```python\n{session.ws.read_text(path)[:MAX_FILE_CHARS].rstrip()}\n```"
        for path in files
    )
    from langchain_core.messages import HumanMessage

    client = session.client()
    reply = client.invoke(
        [HumanMessage(session.prompts.render("check_test", files=shown or "(none)", task=task))],
        **client.sampling(0),
    )
    test = usable_test(str(reply.content))
    session.bus.emit("verify.model_test", usable=test is not None, test=test or "")
    if test is None:
        return None
    return DerivedCheck(
        source="model", description="a test the model wrote from the task", test=test, files=files
    )
