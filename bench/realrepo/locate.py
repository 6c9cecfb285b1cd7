#!/usr/bin/env python3
"""Does Codur show the model the code a bug is in? No model runs: the judge is the patch.

    .venv/bin/python bench/realrepo/locate.py [--only ID,...] [--per-package N] [--limit N]
        [--cache DIR] [--out DIR] [-o key=value ...] [--rejudge]

For each bug of bugs.yaml: its buggy repository (as run.py builds it), one Codur run with
a scripted model that routes the task to the coder and whose replies change nothing (so
the run gets as far as the coder's first prompt, then ends), and where the definitions
the bug's patch touched stand in that prompt, read from the debug log's
`context.located` event:
- `whole`: among the functions shown whole (or in a file shown whole);
- `absent`: the prompt shows none of them (a file the task does not lead to, or a big
  file shown in part without them).
A touched line outside any definition (a module-level constant) counts as `<module>`: it
is visible where its file is shown whole, or where the coder's prompt holds the line
(a file shown in part shows the module-level names its shown functions read). Rows go
to OUT/locate.jsonl (a rerun skips what is there); a table of the counts by task style
is printed at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import yaml  # noqa: E402
from humaneval_codur import NO_MEMORY  # noqa: E402
from humaneval_judge import run as run_command  # noqa: E402
from packages import default_cache, layered_env, load_packages  # noqa: E402
from run import LOG, buggy_repo, per_package  # noqa: E402

from codur.edits.spans import parse, qualified, span  # noqa: E402

HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NOTHING = "I found nothing to change.\n"
ROUTE = json.dumps(
    {"kind": "code_change", "confidence": 0.95, "action": "delegate", "agent": "coder"}
    | {"route": "edit", "reasoning": "a bug to fix"}
)
"""The classifier's answer (a code change) and the planner's (the coder edits) in one
object: whichever of them the run asks first (a task naming a file skips the first)."""


def touched_lines(patch: str) -> dict[str, set[int]]:
    """Path -> the lines of the buggy file (the patch's new side) that the patch wrote, or
    where it deleted lines: where lines replace them, else (a statement dropped) the line
    before for an indented one (the end of its block) and the line after for the rest."""
    out: dict[str, set[int]] = {}
    path, line, old_left, new_left, dropped = "", 0, 0, 0, None

    def settle(replaced: bool) -> None:
        nonlocal dropped
        if dropped is not None:
            out.setdefault(path, set()).add(line if replaced or not dropped else line - 1)
        dropped = None

    for text in patch.splitlines():
        if old_left == new_left == 0:  # between hunks: file headers and hunk headers
            settle(False)
            if text.startswith("+++ "):
                path = text[4:].removeprefix("b/")
            elif m := HUNK.match(text):
                old_left, new_left = int(m.group(1) or 1), int(m.group(3) or 1)
                line = int(m.group(2))
            continue
        if text.startswith("\\"):  # "\ No newline at end of file"
            continue
        if text.startswith("+"):
            settle(True)
            out.setdefault(path, set()).add(line)
            line, new_left = line + 1, new_left - 1
        elif text.startswith("-"):
            dropped = (dropped or False) or text[1:2].isspace()
            old_left -= 1
        else:
            settle(False)
            line, old_left, new_left = line + 1, old_left - 1, new_left - 1
    settle(False)
    return out


def touched(repo: Path, patch: str) -> tuple[set[tuple[str, str]], list[str]]:
    """(path, qualified name) of each innermost definition holding a touched line, and
    the text of the touched lines outside any definition (`<module>`)."""
    found: set[tuple[str, str]] = set()
    module: list[str] = []
    for path, lines in touched_lines(patch).items():
        text = (repo / path).read_text(encoding="utf-8")
        defs = qualified(parse(text).body)
        spans = {name: span(node) for name, node in defs.items()}
        for line in lines:
            inside = [(e - s, n) for n, (s, e) in spans.items() if s <= line <= e]
            found.add((path, min(inside)[1] if inside else "<module>"))
            if not inside and 0 < line <= len(text.splitlines()):
                module.append(text.splitlines()[line - 1].strip())
    return found, module


def located(log: Path) -> tuple[dict | None, str]:
    """The first `context.located` event, and the text of the prompt that followed it."""
    event, prompt = None, ""
    for text in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            continue
        if data.get("event") == "context.located" and event is None:
            event = data
        elif data.get("event") == "model.request" and event is not None and not prompt:
            prompt = "\n".join(str(m.get("content", "")) for m in data.get("messages", []))
    return event, prompt


def where(
    bug_defs: set[tuple[str, str]], event: dict | None, module: list[str] = (), prompt: str = ""
) -> str:
    """`whole` when a definition the patch touched is shown whole, or its file is; a
    touched line outside any definition (a constant) also when the coder's prompt holds
    it (a file shown in part shows the module-level names its shown functions read)."""
    if event is None:
        return "no_prompt"
    found = {(f["path"], f["name"]) for f in event["found"]}
    files = event.get("files") or [f["path"] for f in event["found"]]
    whole_files = set(files) - set(event["parts"])
    for path, name in bug_defs:
        shown = (path, name) in found or any(
            p == path and name.startswith(n + ".") for p, n in found
        )
        telling = [line for line in module if len(line) >= 8]  # not a lone `}`
        if name == "<module>" and path in files and telling and prompt:
            shown = all(line in prompt for line in telling)
        if shown or path in whole_files:
            return "whole"
    return "absent"


def run_one(bug: dict, args) -> dict:
    package = args.packages[bug["package"]]
    with tempfile.TemporaryDirectory(prefix="codur-locate-") as tmp:
        repo = buggy_repo(bug, package, args.cache, Path(tmp) / "repo")
        python = layered_env(package, args.cache, repo, Path(tmp) / "env")
        script = Path(tmp) / "script.yaml"
        script.write_text(yaml.safe_dump([ROUTE, ROUTE, *[NOTHING] * 4]))
        command = [sys.executable, "-m", "codur", bug["task"], "--yes", "--profile", "s"]
        for key in (
            "llm.profiles.s.provider=scripted",
            f"llm.profiles.s.script={script}",
            "llm.profiles.s.agent_tools=false",
            "repair.enabled=false",
            "sampling.candidates=0",
            f"tools.python={python}",
            *(args.set or []),
        ):
            command += ["-o", key]
        run_command([*command, "--max-iterations", "1"], repo, 600, NO_MEMORY)
        if (repo / LOG).is_file():
            (args.out / "logs").mkdir(exist_ok=True)
            (args.out / "logs" / f"{bug['id']}.log").write_bytes((repo / LOG).read_bytes())
        return judge(bug, repo, repo / LOG)


def judge(bug: dict, repo: Path, log: Path) -> dict:
    """The row for `bug`: where its touched definitions stand in the prompt `log` shows."""
    defs, module = touched(repo, bug["patch"])
    event, prompt = located(log) if log.is_file() else (None, "")
    return {
        "id": bug["id"],
        "task_style": bug["task_style"],
        "kind": bug["kind"],
        "bug": sorted(f"{p}:{n}" for p, n in defs),
        "where": where(defs, event, module, prompt),
        "found": [f"{f['path']}:{f['name']}" for f in (event or {}).get("found", [])],
        "parts": (event or {}).get("parts", []),
    }


def rejudge(bug: dict, args) -> dict:
    """The row for `bug` from the log a run kept in OUT/logs (nothing runs)."""
    package = args.packages[bug["package"]]
    with tempfile.TemporaryDirectory(prefix="codur-locate-") as tmp:
        repo = buggy_repo(bug, package, args.cache, Path(tmp) / "repo")
        return judge(bug, repo, args.out / "logs" / f"{bug['id']}.log")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="")
    parser.add_argument("--per-package", type=int)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=Path("realrepo-results"))
    parser.add_argument("-o", "--set", action="append")
    parser.add_argument("--rejudge", action="store_true", help="judge OUT/logs again, run nothing")
    args = parser.parse_args()
    args.cache = args.cache or default_cache()
    bugs = yaml.safe_load((HERE / "bugs.yaml").read_text())["bugs"]
    if args.only:
        bugs = [b for b in bugs if b["id"] in args.only.split(",")]
    if args.per_package is not None:
        bugs = per_package(bugs, args.per_package)
    bugs = bugs[: args.limit] if args.limit is not None else bugs
    args.packages = load_packages()
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / "locate.jsonl"
    lines = out.read_text(encoding="utf-8").splitlines() if out.is_file() else []
    rows = [json.loads(line) for line in lines if line.strip()]
    if args.rejudge:
        rows = [rejudge(b, args) for b in bugs if b["id"] in {r["id"] for r in rows}]
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for bug in bugs:
        if bug["id"] not in {r["id"] for r in rows}:
            row = run_one(bug, args)
            print(row["id"], row["where"], row["bug"], flush=True)
            rows.append(row)
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
    rows = [r for r in rows if r["id"] in {b["id"] for b in bugs}]
    counts = Counter((r["task_style"], r["where"]) for r in rows)
    for style in sorted({r["task_style"] for r in rows}):
        total = sum(n for (s, _), n in counts.items() if s == style)
        parts = ", ".join(f"{w} {n}" for (s, w), n in sorted(counts.items()) if s == style)
        print(f"{style}: {total} bugs: {parts}")


if __name__ == "__main__":
    main()
