"""The HumanEval judge and the bare model's code extraction (used by bench/humaneval.py).

The judge knows nothing of Codur: it runs the problem's own test (`problem["test"]` and
`check(<entry_point>)`) against a solution.py in a fresh subprocess with a timeout, the
test executed in the solution module's namespace as HumanEval's own harness does.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

_CHECK_PROGRAM = """\
import solution

namespace = vars(solution)
with open("humaneval_test.py", encoding="utf-8") as f:
    exec(compile(f.read(), "humaneval_test.py", "exec"), namespace)
namespace["check"](namespace[{entry!r}])
"""


@dataclass(frozen=True)
class Completed:
    exit_code: int | None
    """None when the process was killed on timeout."""
    stdout: str
    stderr: str
    timed_out: bool


def run(
    command: list[str], cwd: Path, timeout_s: float, env: dict[str, str] | None = None
) -> Completed:
    """Run `command` in `cwd` in its own process group (`env`: variables added to this
    process's environment); kill the group on timeout."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Completed(None, out, err, True)
    return Completed(proc.returncode, out, err, False)


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str
    """"passed", or why not: a missing entry point, a syntax error, the test's last error
    line, "timeout"."""


def defines(source: str, name: str) -> bool | None:
    """Whether the module defines `name` at top level; None when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return True
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
    return False


def judge(solution: Path, problem: dict, timeout_s: float) -> Verdict:
    """Run HumanEval's test for `problem` against the file `solution`."""
    if not solution.is_file():
        return Verdict(False, "solution.py is missing")
    source = solution.read_text(encoding="utf-8", errors="replace")
    entry = problem["entry_point"]
    found = defines(source, entry)
    if found is None:
        return Verdict(False, "syntax error")
    if not found:
        return Verdict(False, f"no {entry} defined")
    with tempfile.TemporaryDirectory(prefix="codur-humaneval-judge-") as tmp:
        folder = Path(tmp)
        (folder / "solution.py").write_text(source, encoding="utf-8")
        (folder / "humaneval_test.py").write_text(problem["test"], encoding="utf-8")
        (folder / "check.py").write_text(_CHECK_PROGRAM.format(entry=entry), encoding="utf-8")
        done = run([sys.executable, "-E", "-s", "check.py"], folder, timeout_s)
    if done.timed_out:
        return Verdict(False, "timeout")
    if done.exit_code == 0:
        return Verdict(True, "passed")
    return Verdict(False, _failure(done.stderr) or f"exit code {done.exit_code}")


def _failure(stderr: str) -> str:
    """The traceback's last line; for a bare AssertionError, with the failing assert."""
    lines = stderr.strip().splitlines()
    if not lines:
        return ""
    last = lines[-1].strip()
    if last == "AssertionError":
        code = [line.strip() for line in lines[:-1] if line.startswith("    ")]
        code = [line for line in code if line.strip("^~ ")]  # not the caret markers
        if code and code[-1].startswith("assert"):
            last = f"AssertionError: {code[-1]}"
    return last[:200]


_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)


def first_code_block(reply: str) -> str:
    """The first ```python block (else the first ``` block, else the whole reply)."""
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(reply)]
    for lang, body in blocks:
        if lang in ("python", "py", "python3"):
            return body
    return blocks[0][1] if blocks else reply


def assemble(prompt: str, code: str, entry: str) -> str:
    """solution.py from the prompt and the reply's code.

    - The code defines the entry point: the prompt's imports and other definitions the
      code lacks (a helper the prompt gives, e.g. encode_cyclic) come first, then the code.
    - Otherwise the code is the function's body: the prompt followed by it, indented.
    """
    if defines(code, entry):
        tree = ast.parse(code)
        have = {n.name for n in tree.body if hasattr(n, "name")}
        lines = set(code.splitlines())
        parts = []
        for node in ast.parse(prompt).body:
            text = ast.get_source_segment(prompt, node, padded=False) or ""
            if isinstance(node, ast.Import | ast.ImportFrom):
                if text not in lines:
                    parts.append(text)
            elif getattr(node, "name", entry) not in have:
                parts.append(text)
        preamble = "\n".join(parts)
        return f"{preamble}\n\n\n{code.strip()}\n" if preamble else code.strip() + "\n"
    body = textwrap.dedent(code).strip("\n")
    return prompt.rstrip("\n") + "\n" + textwrap.indent(body, "    ") + "\n"
