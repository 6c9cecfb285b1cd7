"""The bare model on a real-repository bug: the failing tests' output and the file their
traceback names, one call; the functions of its reply replace those of the same name;
then one retry with the new output if the tests still fail.

The file is the last traceback frame inside the package's code; when the traceback names
only the test file (a wrong value caught by an assertion), the package file defining
most of the names the failing statement uses. A file longer than WINDOW characters is
shown as a window of that size around the line (the model's context is small).
"""

from __future__ import annotations

import ast
import re
import threading
from pathlib import Path
from typing import Any

from packages import Package
from suite import is_test_file, run_suite

SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
WINDOW = 14_000
OUTPUT_CHARS = 4_000
ASK = (
    "A test of this Python project fails.\n\nTest output:\n```\n{output}\n```\n\n"
    "{where}:\n```python\n{code}\n```\n"
    "Fix the bug in the package's code (the tests are right). Reply with every function "
    "you change, complete, in one ```python block."
)
FIRST_ASKED = "A test of this Python project failed; I showed you the code and the output."
"""What the retry keeps of the first question (its code and output are replaced by the
new ones): the conversation must fit the model's context window."""
RETRY = (
    "After your change the tests still fail:\n```\n{output}\n```\n\n{where}:\n"
    "```python\n{code}\n```\nFix it. Reply with every function you change, complete, in "
    "one ```python block."
)
FRAME = re.compile(r"^([\w./-]+\.py):(\d+)(?::|$)", re.MULTILINE)


def target(output: str, repo: Path, package: Package, statement: str) -> tuple[str, int]:
    """(file relative to the repo, line) the model is shown."""
    for path, line in reversed(FRAME.findall(output)):
        rel = Path(path)
        if (repo / rel).is_file() and not is_test_file(rel, package):
            return rel.as_posix(), int(line)
    names = set(re.findall(r"[A-Za-z_]\w*", statement))
    best: tuple[int, str, int] = (-1, "", 1)
    for source in package.sources:
        root = repo / source
        for file in [root] if root.is_file() else sorted(root.rglob("*.py")):
            rel = file.relative_to(repo)
            if is_test_file(rel, package):
                continue
            defs = {
                n.name: n.lineno
                for n in ast.walk(ast.parse(file.read_text(encoding="utf-8")))
                if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            }
            hits = [defs[n] for n in names if n in defs]
            if len(hits) > best[0]:
                best = (len(hits), rel.as_posix(), min(hits) if hits else 1)
    return best[1], best[2]


def shown(text: str, line: int) -> tuple[str, str]:
    """The code shown and how it is described (whole file, or a window of lines)."""
    if len(text) <= WINDOW:
        return text, ""
    lines = text.splitlines(keepends=True)
    first = last = max(0, line - 1)
    size = len(lines[first])
    while size < WINDOW and (first > 0 or last < len(lines) - 1):
        if first > 0:
            first -= 1
            size += len(lines[first])
        if last < len(lines) - 1:
            last += 1
            size += len(lines[last])
    return "".join(lines[first : last + 1]), f" (lines {first + 1}-{last + 1})"


def first_block(reply: str) -> str:
    found = re.search(r"```(?:python|py)?\s*\n(.*?)```", reply, re.DOTALL)
    return found.group(1) if found else ""


def merge(text: str, block: str, line: int) -> tuple[str, int]:
    """Each function of `block` replaces the file's function of the same name (the one
    nearest `line` when several); returns the new text and how many were replaced."""
    try:
        new_defs = [n for n in ast.walk(ast.parse(block)) if isinstance(n, ast.FunctionDef)]
        tree = ast.parse(text)
    except SyntaxError:
        return text, 0
    block_lines = block.splitlines(keepends=True)
    replaced = 0
    for new in sorted(new_defs, key=lambda n: -n.lineno):
        olds = [
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == new.name
        ]
        if not olds:
            continue
        old = min(olds, key=lambda n: abs(n.lineno - line))
        first_new = min([new.lineno, *(d.lineno for d in new.decorator_list)])
        first_old = min([old.lineno, *(d.lineno for d in old.decorator_list)])
        body = block_lines[first_new - 1 : new.end_lineno]
        indent = " " * old.col_offset
        strip = new.col_offset
        body = [indent + b[strip:] if b.strip() else b for b in body]
        lines = text.splitlines(keepends=True)
        text = "".join(lines[: first_old - 1] + body + lines[old.end_lineno :])
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return text, replaced + 1
        replaced += 1
    return text, replaced


class BareModel:
    """The profile's chat model, built once; calls are serialized (one model in memory)."""

    def __init__(self, profile_name: str, overrides: list[str]) -> None:
        from humaneval_codur import profile_of

        self.name, self.profile = profile_of(profile_name, overrides)
        self._models: dict[int, Any] = {}
        self.lock = threading.Lock()

    def ask(self, messages: list[tuple[str, str]], seed: int) -> tuple[str, dict]:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        from codur.models import provider

        kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        with self.lock:
            if seed not in self._models:
                profile = self.profile.model_copy(update={"seed": seed})
                self._models = {seed: provider(profile.provider).build(self.name, profile)}
            reply = self._models[seed].invoke([kinds[k](v) for k, v in messages])
        return str(reply.content), dict(getattr(reply, "usage_metadata", None) or {})


def run_bare(
    model: BareModel,
    package: Package,
    repo: Path,
    python: Path,
    bug: dict,
    seed: int,
    timeout_s: float,
) -> dict:
    """Two turns at most; returns the figures the journal records (a model error ends
    the run, recorded as its `error`)."""
    from codur.models.local_actions import LlamaRuntimeError

    statement = ""
    messages: list[tuple[str, str]] = [("system", SYSTEM)]
    tokens = [0, 0]
    calls = 0
    rel = ""
    for turn in range(2):
        run = run_suite(python, package, repo, timeout_s, bug["failing"], ("--tb=short",))
        if turn and not run.failing() and run.exit_code == 0:
            break
        for record in run.outcomes.values():
            statement = statement or record.get("statement", "")
        output = run.output[-OUTPUT_CHARS:]
        if turn == 0:
            rel, line = target(run.output, repo, package, statement)
        text = (repo / rel).read_text(encoding="utf-8")
        code, window = shown(text, line)
        where = f"File {rel}{window}"
        prompt = (ASK if turn == 0 else RETRY).format(output=output, where=where, code=code)
        if turn:
            messages[1] = ("user", FIRST_ASKED)
        messages.append(("user", prompt))
        try:
            reply, usage = model.ask(messages, seed)
        except LlamaRuntimeError as exc:  # e.g. a prompt longer than the context window
            error = f"{type(exc).__name__}: {exc}"
            return {**figures(calls, tokens, rel), "status": "error", "error": error}
        messages.append(("assistant", reply))
        calls += 1
        tokens[0] += int(usage.get("input_tokens", 0))
        tokens[1] += int(usage.get("output_tokens", 0))
        new, _ = merge(text, first_block(reply), line)
        (repo / rel).write_text(new, encoding="utf-8")
    return {**figures(calls, tokens, rel), "status": "", "error": ""}


def figures(calls: int, tokens: list[int], shown_file: str) -> dict:
    return {
        "model_calls": calls,
        "prompt_tokens": tokens[0],
        "completion_tokens": tokens[1],
        "shown_file": shown_file,
    }
