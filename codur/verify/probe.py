"""Probes: calls that show what code does beyond the few examples its docstrings give. The
examples' own calls (of top-level functions, literal arguments) and their type-aware
mutants (codur/verify/mutate.py). A probe has no expected value: running the probes on
several candidates shows where they behave differently (codur/agents/crosscheck.py).

`behaviour` runs the probes on the code of a workspace (or a scratch copy) in one program,
in the run's sandbox: each call's value (floats rounded), or the exception it raised, or
that it ran out of time; the program a module would run is left out (check_helpers.py).
"""

from __future__ import annotations

import ast
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codur.errors import WorkspaceError
from codur.litter import temp_prefix
from codur.tools.context import ToolContext
from codur.verify.mutate import argument_mutants
from codur.verify.statements import DocExample, doctest_examples

MARK = "codur-probe-results:"
"""Starts the line of the probe program's output that holds the results."""


@dataclass(frozen=True)
class Probe:
    """Call `function` of the module `path` with the arguments `args` (a tuple literal)."""

    path: str
    function: str
    args: str
    example: bool
    """The arguments of an example (else a mutant of them)."""


def _parameters(tree: ast.Module) -> dict[str, list[str]]:
    """Top-level functions -> their positional parameters."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    return found


def _arguments(call: ast.Call, parameters: list[str]) -> tuple[object, ...] | None:
    """The call's arguments as values, keywords put in their places; None if not literal."""
    named = {k.arg: k.value for k in call.keywords}
    if None in named or set(named) - set(parameters[len(call.args) :]):
        return None
    rest = parameters[len(call.args) :]
    if any(name not in named for name in rest[: len(named)]):
        return None  # a keyword skips a parameter (one with a default, left out)
    nodes = [*call.args, *(named[n] for n in rest[: len(named)])]
    try:
        return tuple(ast.literal_eval(a) for a in nodes)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def example_calls(sources: dict[str, str]) -> list[tuple[str, str, tuple[object, ...]]]:
    """(path, function, arguments) of every call of a top-level function of `sources` in
    their docstrings' examples, in order, each once."""
    found: dict[str, tuple[str, str, tuple[object, ...]]] = {}
    for item in doctest_examples(sources):
        try:
            parameters = _parameters(ast.parse(sources[item.path]))
            text = item.source if isinstance(item, DocExample) else item.call
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in parameters:
                continue
            args = _arguments(node, parameters[node.func.id])
            if args is not None:
                key = repr((item.path, node.func.id, args))
                found.setdefault(key, (item.path, node.func.id, args))
    return list(found.values())


def probes(sources: dict[str, str], limit: int, mutate: bool = True) -> list[Probe]:
    """The examples' calls, then (with `mutate`) their mutants taken in turn from each
    example, at most `limit` in all."""
    calls = example_calls(sources)
    chosen = {repr((p, f, a)): Probe(p, f, repr(a), True) for p, f, a in calls}
    pending = [(p, f, iter(argument_mutants(a))) for p, f, a in calls] if mutate else []
    while pending and len(chosen) < limit:
        for entry in list(pending):
            path, function, mutants = entry
            mutant = next(mutants, None)
            if mutant is None:
                pending.remove(entry)
            elif (key := repr((path, function, mutant))) not in chosen and len(chosen) < limit:
                chosen[key] = Probe(path, function, repr(mutant), False)
    return list(chosen.values())[:limit]


def _program() -> str:
    here = Path(__file__).parent
    support = (here / "check_helpers.py").read_text(encoding="utf-8")
    return support + "\n\n" + (here / "probe_runner.py").read_text(encoding="utf-8")


def behaviour(ctx: ToolContext, found: list[Probe], call_timeout_s: float) -> list[str]:
    """What each probe does on the code in `ctx`'s workspace: `=value`, `!ExceptionName`,
    or `!timeout`; every probe `!crashed` when the program itself died."""
    if not found:
        return []
    with tempfile.TemporaryDirectory(prefix=temp_prefix("probe")) as tmp:
        folder = Path(tmp).resolve()
        if ctx.ws.contains(folder):
            raise WorkspaceError(f"the temporary folder {folder} is inside the workspace")
        program = folder / "codur_probe.py"
        program.write_text(_program(), encoding="utf-8")
        command = [ctx.python, str(program), str(call_timeout_s)]
        stdin = json.dumps([[p.path, p.function, p.args] for p in found])
        timeout = call_timeout_s * len(found) + ctx.config.pytest_timeout_s
        path = os.pathsep.join(p for p in (str(ctx.ws.root), os.environ.get("PYTHONPATH")) if p)
        env = {"PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
        run = ctx.run(command, timeout, stdin=stdin, env=env)
    for line in reversed(run.raw_stdout.splitlines()):  # compared: as printed
        if line.startswith(MARK):
            try:
                results = json.loads(line.removeprefix(MARK))
            except json.JSONDecodeError:  # cut short (the output cap): as if it died
                break
            if isinstance(results, list) and len(results) == len(found):
                return [str(r) for r in results]
    return ["!crashed"] * len(found)
