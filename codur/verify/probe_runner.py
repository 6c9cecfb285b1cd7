"""The probe program's runner (codur/verify/probe.py): appended to check_helpers.py's
source, the file alone is the program, so it imports nothing from codur.

    python codur_probe.py SECONDS < probes.json

stdin: a JSON list of [module path, function, argument tuple literal]. Each call gets a
deep copy of its arguments and SECONDS of wall time; what it prints is discarded. The
last line printed is MARK and a JSON list with one result per probe.
"""

import ast
import collections.abc
import contextlib
import copy
import io
import itertools
import json
import re
import signal
import sys

MARK = "codur-probe-results:"
RESULT_CHARS = 400
"""A result longer than this is cut (two values that long and equal so far are alike)."""
ITEMS = 100
"""Items of an iterator a call returns that are compared."""
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class _Late(BaseException):
    """The call ran out of its time."""


def _late(signum, frame):
    raise _Late


def _normal(value):
    """`value` as a comparable form: floats rounded (two ways of summing are one answer),
    sets and dicts in a fixed order (equal ones print alike whatever their history), a
    named tuple as the tuple it equals, an iterator (a generator, `map`) as its first
    ITEMS items."""
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, list | tuple):
        return (list if isinstance(value, list) else tuple)(_normal(v) for v in value)
    if isinstance(value, set | frozenset):
        return (type(value).__name__, sorted((_normal(v) for v in value), key=repr))
    if isinstance(value, dict):
        return ("dict", sorted(((_normal(k), _normal(v)) for k, v in value.items()), key=repr))
    if isinstance(value, collections.abc.Iterator):
        return ("iterator", [_normal(v) for v in itertools.islice(value, ITEMS)])
    return value


def _shown(value):
    """The repr of `value`'s comparable form, without memory addresses (`<X object at
    0x7f..>` differs in every process though the objects are alike)."""
    return _ADDRESS.sub("", repr(_normal(value)))


def _call(path, function, args, seconds):
    try:
        target = getattr(load(path), function)  # noqa: F821 (check_helpers.py's load)
        arguments = copy.deepcopy(ast.literal_eval(args))
    except BaseException as exc:  # noqa: BLE001 (a module that does not load: every call says so)
        return f"!load {type(exc).__name__}"
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            value = target(*arguments)
        return "=" + _shown(value)
    except _Late:
        return "!timeout"
    except BaseException as exc:  # noqa: BLE001 (what the code raised is its behaviour)
        return "!" + type(exc).__name__
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _guarded(path, function, args, seconds):
    """`_call`, also when the alarm fires just after the call, before it is disarmed."""
    try:
        return _call(path, function, args, seconds)
    except _Late:
        return "!timeout"


def main():
    probes = json.loads(sys.stdin.read())
    sys.stdin = io.StringIO()  # a call that reads input gets end of file
    signal.signal(signal.SIGALRM, _late)
    seconds = float(sys.argv[1])
    results = [_guarded(p, f, a, seconds)[:RESULT_CHARS] for p, f, a in probes]
    sys.stdout.write(MARK + json.dumps(results) + "\n")


if __name__ == "__main__":
    main()
