"""Experiment: probe inputs derived from a docstring's examples, and behaviours of candidates."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from codur.verify.statements import DocExample, doctest_examples


def example_args(prompt: str, entry: str) -> list[tuple]:
    """Argument tuples of the examples' calls of `entry` (literal arguments only)."""
    found = []
    params = []
    for node in ast.walk(ast.parse(prompt)):
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            params = [a.arg for a in node.args.args]
    for ex in doctest_examples({"solution.py": prompt}):
        source = ex.source if isinstance(ex, DocExample) else ex.call
        try:
            node = ast.parse(source.strip(), mode="eval").body
        except SyntaxError:
            continue
        # an example may wrap the call: candidate(f(x)) etc.; take calls of entry anywhere
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == entry:
                named = {k.arg: k.value for k in call.keywords}
                if set(named) - set(params):
                    continue
                rest = [named[p] for p in params[len(call.args):] if p in named]
                try:
                    found.append(tuple(ast.literal_eval(a) for a in [*call.args, *rest]))
                except (ValueError, SyntaxError):
                    continue
    return list({repr(a): a for a in found}.values())


def mutations(v: object) -> list[object]:
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, v - 1, 0, 1, -v, v * 2 + 3]
    if isinstance(v, float):
        return [v + 0.5, 0.0, -v, v * 2]
    if isinstance(v, str):
        out = ["", v[:1], v[::-1], v + v[:1], v[:-1], v.upper(), v.swapcase()]
        if " " in v:
            out.append(v.replace(" ", "  "))
        return out
    if isinstance(v, list | tuple):
        t = type(v)
        out = [t(), t(v[:1]), t(v[:-1]), t(v[::-1]), t(list(v) + list(v[:1]))]
        if v:
            out += [t([m, *v[1:]]) for m in mutations(v[0])[:3]]
        return out
    if isinstance(v, dict):
        out = [{}]
        if v:
            k = next(iter(v))
            out.append({x: y for x, y in v.items() if x != k})
        return out
    return []


def probes(prompt: str, entry: str, cap: int = 40) -> tuple[list[tuple], int]:
    """(probe argument tuples, how many of them are the examples' own)."""
    base = example_args(prompt, entry)
    seen = {repr(a): a for a in base}
    extra: dict[str, tuple] = {}
    for args in base:
        for i, value in enumerate(args):
            for m in mutations(value):
                new = (*args[:i], m, *args[i + 1 :])
                key = repr(new)
                if key not in seen and key not in extra:
                    extra[key] = new
    return list(seen.values()) + list(extra.values())[: max(0, cap - len(seen))], len(seen)


HARNESS = r'''
import copy, json, signal, sys, importlib.util
def norm(x):
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, (list, tuple)):
        return type(x)(norm(y) for y in x)
    if isinstance(x, dict):
        return {k: norm(y) for k, y in x.items()}
    return x
class Late(Exception):
    pass
def late(*a):
    raise Late()
signal.signal(signal.SIGALRM, late)
spec = importlib.util.spec_from_file_location("solution", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(mod)
    f = getattr(mod, sys.argv[2])
except BaseException as e:
    print(json.dumps(["!load " + type(e).__name__]))
    sys.exit(0)
out = []
for args in eval(sys.stdin.read()):
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        r = "=" + repr(norm(f(*copy.deepcopy(args))))
    except Late:
        r = "!timeout"
    except RecursionError:
        r = "!RecursionError"
    except BaseException as e:
        r = "!" + type(e).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    out.append(r[:2000])
print(json.dumps(out))
'''


def behaviour(solution: Path, entry: str, args: list[tuple]) -> list[str]:
    try:
        run = subprocess.run(
            [sys.executable, "-c", HARNESS, str(solution), entry],
            input=repr(args), capture_output=True, text=True, timeout=120,
        )
        return json.loads(run.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError):
        return ["!harness"] * len(args)
