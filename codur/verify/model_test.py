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


def _modules(path: str) -> set[str]:
    """The dotted names a file may be imported by: from the folder, or from any folder
    above it on the path (`src/shop/cart.py` is `shop.cart` in a src layout)."""
    parts = path.removesuffix(".py").split("/")
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    return {".".join(parts[i:]) for i in range(len(parts))}


def untested_code(test: str, files: list[str]) -> str:
    """Why `test` checks nothing of the code in `files` (empty: it does): it neither
    imports their modules nor names a file (a script run by path), or defines again every
    name it imports from them (a test with its own `starts_one_ends` passes or fails
    whatever the file says)."""
    modules = {m for f in files if f.endswith(".py") for m in _modules(f)}
    tree = ast.parse(test)
    imported: set[str] = set()
    whole = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            whole |= any(
                m == a.name or m.startswith(f"{a.name}.") for a in node.names for m in modules
            )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            package = any(m.startswith(f"{node.module}.") for m in modules)
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules or package:
                    whole = True  # the module, or a name its package exports
                elif node.module in modules:
                    imported.add(alias.asname or alias.name)
    defined = {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    defined |= {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    paths = {p for f in files for p in (f, f.rsplit("/", 1)[-1])}
    runs = any(  # a script run by its path (runpy, subprocess)
        isinstance(n, ast.Constant) and n.value in paths for n in ast.walk(tree)
    )
    if whole or runs or imported - defined:
        return ""
    if imported:
        return f"it defines {', '.join(sorted(imported))} itself instead of testing the code's"
    named = sorted(max(_modules(f), key=len) for f in files if f.endswith(".py"))
    return f"it imports nothing from {', '.join(named) or 'the code'}"


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
    if why := untested_code(test, files):
        session.bus.emit("verify.model_test_rejected", reason=why, test=test)
        return None
    return DerivedCheck(
        source="model", description="a test the model wrote from the task", test=test, files=files
    )
