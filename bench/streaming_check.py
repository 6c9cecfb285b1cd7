#!/usr/bin/env python3
"""What streaming verification saves: an output check of a slow program whose first line
is wrong (it then works for `--work` seconds), stopped at that line, against the same
check waiting for the program to end; and a correct slow program, which runs to its end
either way (the watch costs nothing there).

    .venv/bin/python bench/streaming_check.py [--work SECONDS]

Programs run in temporary folders through `run_process`, in the default sandbox.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = "import time\nprint({first!r}, flush=True)\ntime.sleep({work})\nprint('done')\n"
EXPECTED = "0\ndone\n"


def timed_check(root: Path, streaming: bool) -> tuple[float, bool]:
    """Seconds the check of `root`'s main.py took (its run in the sandbox, watched line by
    line when `streaming`, then the comparison), and whether it passed."""
    from codur.process import run_process
    from codur.sandbox import Sandbox
    from codur.verify.check import normalize
    from codur.verify.stream import mismatch

    start = time.perf_counter()
    result = run_process(
        [sys.executable, "main.py"],
        root,
        timeout_s=600,
        output_limit=1_000_000,
        sandbox=Sandbox(),
        stop_on=mismatch(EXPECTED) if streaming else None,
    )
    passed = result.ok and normalize(result.raw_stdout) == normalize(EXPECTED)
    return time.perf_counter() - start, passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=float, default=5.0, help="seconds the program sleeps")
    args = parser.parse_args()
    for first, label in (("wrong", "wrong first line"), ("0", "correct output")):
        with tempfile.TemporaryDirectory(prefix="codur-bench-stream-") as tmp:
            root = Path(tmp)
            (root / "main.py").write_text(PROGRAM.format(first=first, work=args.work))
            waited, passed = timed_check(root, streaming=False)
            streamed, same = timed_check(root, streaming=True)
            assert passed == same, "streaming changed the verdict"
            print(
                f"{label:17} ({'passes' if passed else 'fails'}): waiting {waited:.2f} s, "
                f"streaming {streamed:.2f} s, {waited / streamed:.1f}x"
            )


if __name__ == "__main__":
    main()
