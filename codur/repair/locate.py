"""Where to look: the lines the failing check executed, and the failing traceback.

A mutation on a line the failing run never executed cannot change that run, so such
candidates are dropped. The rest go in tiers: traceback lines; the functions of the
traceback; code that ran before the first wrong output line was printed (the wrong line
depends on it); everything else the run executed.
"""

from __future__ import annotations

import ast
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from codur import source_encoding
from codur.litter import temp_prefix
from codur.repair.mutations import Mutation
from codur.tools.context import ToolContext
from codur.verify.derived import DerivedCheck
from codur.verify.evidence import Location
from codur.verify.plan import OutputCheck, TestCheck, VerificationPlan
from codur.verify.target import is_test

TRACER = Path(__file__).with_name("tracer.py")
TRACE_OUTPUT = 1_000_000
"""Output kept from a traced run (only its trace file is read)."""

PRIORITY = (
    "off_by_one",
    "comparison",
    "boolean",
    "constant",
    "arithmetic",
    "negate",
    "guard",
    "exception",
    "fstring",
    "mutable_default",
    "associativity",
    "swap_args",
    "wrong_variable",
)
"""Operators in the order their candidates are tried at equal rank: common, cheap bugs
first; wrong-variable substitutions (many, rarely right) last."""

Executed = dict[str, dict[int, int]]
"""Path -> executed line -> output lines printed before that line first ran."""


def traced_command(
    check: OutputCheck | TestCheck | DerivedCheck,
    out: Path,
    root: Path,
    python: str,
    tracer: Path = TRACER,
) -> list[str] | None:
    """The command that runs `check` under `tracer` (which writes `out`) with `python`
    (the project's); None when the check runs no Python a tracer can start."""
    head = [python, str(tracer), str(out), str(root)]
    if isinstance(check, OutputCheck):
        return [*head, "path", check.entry]
    if isinstance(check, DerivedCheck):  # its test file goes next to the trace, outside root
        test_file = check.write(out.parent)
        flags = ["--verbosity=-1", "-p", "no:cacheprovider"]
        return [*head, "module", "pytest", *flags, str(test_file)]
    started = check.traced(root)
    return None if started is None else [*head, *started]


def executed_lines(
    plan: VerificationPlan,
    ctx: ToolContext,
    timeout_s: float,
    tick: Callable[[], None] | None = None,
) -> Executed | None:
    """Lines (by workspace path) the plan's programs ran in `ctx`'s folder (a scratch
    copy), or None if tracing failed; `tick`: called while a program runs."""
    root = ctx.ws.root
    executed: Executed = {}
    dynamic = [c for c in plan.checks if isinstance(c, OutputCheck | TestCheck | DerivedCheck)]
    for check in dynamic:
        with tempfile.TemporaryDirectory(prefix=temp_prefix("trace")) as tmp:
            out = Path(tmp) / "lines.json"
            env = check.env(root) if isinstance(check, DerivedCheck) else None
            command = traced_command(check, out, root, ctx.python)
            if command is None:  # a shell script or `make test`: every line may matter
                return None
            writable, limit = [Path(tmp)], TRACE_OUTPUT
            ctx.run(command, timeout_s, env=env, writable=writable, output_limit=limit, tick=tick)
            if not out.is_file():
                return None
            seen = {
                Path(path).as_posix(): {int(line): printed for line, printed in lines.items()}
                for path, lines in json.loads(out.read_text(encoding="utf-8")).items()
            }
            if isinstance(check, TestCheck) and not _ran_code(root, seen):
                return None  # tests that reached no function of the code: no trace
            for path, lines in seen.items():
                known = executed.setdefault(path, {})
                for line, printed in lines.items():
                    known[line] = min(printed, known.get(line, printed))
    return executed if dynamic else None


def _ran_code(root: Path, executed: Executed) -> bool:
    """Whether a trace of tests saw a line inside a function of the folder's code (not
    its tests nor conftest.py). One that saw only modules imported tells nothing of
    where the failure is: the tests ran in other processes (pytest-xdist's workers), or
    the runner was missing."""
    for path, lines in executed.items():
        if is_test(path) or Path(path).name == "conftest.py" or not path.endswith(".py"):
            continue
        try:
            source = source_encoding.read(root / path)
        except (OSError, UnicodeDecodeError):
            continue
        spans = _function_spans(_parse(source))
        if any(first < line <= last for line in lines for first, last in spans):
            return True
    return False


def _parse(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def _function_spans(tree: ast.Module) -> list[tuple[int, int]]:
    return [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _statement_lines(tree: ast.Module) -> dict[int, range]:
    """For each line, the lines of the innermost statement holding it (a compound
    statement's header only). A line of a multi-line statement may run no code of its
    own (constants folded into a list display); its statement's lines tell if it ran."""
    spans: dict[int, range] = {}
    for node in ast.walk(tree):  # outer statements first; inner ones overwrite
        if isinstance(node, ast.stmt):
            body = getattr(node, "body", None)
            last = body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
            span = range(node.lineno, max(last or node.lineno, node.lineno) + 1)
            for line in span:
                spans[line] = span
    return spans


def rank(
    edits: list[Mutation],
    sources: dict[str, str],
    executed: Executed | None,
    where: list[Location],
    first_wrong_line: int | None = None,
) -> list[Mutation]:
    """Drop edits the failing run cannot have reached; order the rest most likely first.
    `first_wrong_line`: index of the first output line that differs from the expected."""
    lines = {(loc.path, loc.line): i for i, loc in enumerate(reversed(where))}
    trees = {path: _parse(text) for path, text in sources.items()}
    spans = {path: _function_spans(tree) for path, tree in trees.items()}
    statements = {path: _statement_lines(tree) for path, tree in trees.items()}
    hot = {
        (loc.path, span)
        for loc in where
        for span in spans.get(loc.path, [])
        if span[0] <= loc.line <= span[1]
    }

    def printed_before(edit: Mutation) -> int | None:
        """Output lines printed before the edited statement first ran (None: never ran)."""
        if executed is None:  # no trace: anything may matter
            return 0
        ran = executed.get(edit.path, {})
        own = statements.get(edit.path, {})
        edited = range(edit.line, edit.end_line + 1)
        firsts = [ran[n] for line in edited for n in own.get(line, (line,)) if n in ran]
        return min(firsts) if firsts else None

    def key(edit: Mutation) -> tuple[int, int, int, int]:
        hits = [
            lines[(edit.path, n)]
            for n in range(edit.line, edit.end_line + 1)
            if (edit.path, n) in lines
        ]
        in_hot = any(path == edit.path and span[0] <= edit.line <= span[1] for path, span in hot)
        early = first_wrong_line is None or (printed_before(edit) or 0) <= first_wrong_line
        tier = 0 if hits else 1 if in_hot else 2 if early else 3
        order = PRIORITY.index(edit.operator) if edit.operator in PRIORITY else len(PRIORITY)
        return (tier, min(hits) if hits else 0, order, edit.size)

    return sorted((e for e in edits if printed_before(e) is not None), key=key)
