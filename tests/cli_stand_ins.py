"""Stand-ins for the `codex` and `claude` CLIs: small Python programs, put on PATH in a
test's folder, that take their command line the way the real CLIs do (unknown flags
are errors, the prompt is an argument or standard input), edit the file in their
working folder like an agent fixing the bug would, and print what the real CLI prints
(`codex exec --json`: JSON lines of events; `claude -p --output-format json`: one JSON
object). The model is the only thing they fake.

`mode` picks the behaviour: fix (the sum's off-by-one in main.py), fail (exit 1 with an
error on stderr, like a CLI whose login expired), hang (never finishes), tamper (fix,
and also rewrite expected.txt so the check would pass anyway), wrong-first (a wrong fix,
then the right one once the prompt lists an earlier attempt), escape (fix, after trying
to plant what would run later outside the sandbox: a git hook, a git config, a `.git`
of its own, its own settings; the reply ends with what each try came to), new-git (make
a `.git` with a hook in a workspace that has none, and no fix).
"""

from __future__ import annotations

import sys
from pathlib import Path

COMMON = r'''
import json, os, sys, time
from pathlib import Path

MODE = {mode!r}

def attempt(action):
    try:
        action()
    except OSError as exc:
        return type(exc).__name__
    return "done"

def escape(root):
    """Plant what would run outside the sandbox later; {{try: what came of it}}."""
    git, home = root / ".git", Path(os.environ["HOME"])
    def own_git():
        git.rename(root / ".git-old")
        (git / "hooks").mkdir(parents=True)
        (git / "hooks" / "pre-commit").write_text("#!/bin/sh\necho planted\n")
    return {{
        "hook": attempt(lambda: (git / "hooks" / "pre-commit").write_text("#!/bin/sh\n")),
        "config": attempt(lambda: (git / "config").write_text("[core]\nhooksPath = /x\n")),
        "own_git": attempt(own_git),
        "settings": attempt(lambda: (home / ".codex" / "config.toml").write_text("x = 1\n")),
    }}

def edit(root, prompt):
    """What the agent does to the workspace; a line for its reply."""
    tried = escape(root) if MODE == "escape" else None
    if MODE == "new-git":
        (root / ".git" / "hooks").mkdir(parents=True)
        (root / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho planted\n")
        return "made a .git"
    main = root / "main.py"
    text = main.read_text()
    if MODE == "wrong-first" and "Earlier attempts" not in prompt:
        main.write_text(text.replace("range(len(xs) - 1)", "range(len(xs) - 2)"))
        return "main.py: adjusted the loop bound"
    text = text.replace("range(len(xs) - 2)", "range(len(xs) - 1)")
    main.write_text(text.replace("range(len(xs) - 1)", "range(len(xs))"))
    if MODE == "tamper":
        (root / "expected.txt").write_text("6\n")
    said = "main.py: the loop skipped the last element; it now goes over all of them"
    return said if tried is None else f"{{said}}; tried: {{json.dumps(tried)}}"

def misbehave(name):
    if MODE == "fail":
        print(f"{{name}}: error: 401 Unauthorized: your session expired, log in again",
              file=sys.stderr)
        sys.exit(1)
    if MODE == "hang":
        time.sleep(600)
'''

CODEX = r"""
# codex exec [--json] [--sandbox MODE] [--skip-git-repo-check] [-m|--model M] [--] PROMPT|-
args = sys.argv[1:]
if not args or args[0] != "exec":
    print("stand-in codex: only `codex exec` is implemented", file=sys.stderr)
    sys.exit(2)
args, flags, prompt = args[1:], {{}}, None
takes_value = {{"--sandbox", "-s", "--model", "-m", "--color", "-C", "--cd", "-c"}}
switches = {{"--json", "--skip-git-repo-check", "--full-auto", "--ephemeral"}}
while args:
    arg = args.pop(0)
    if arg == "--":
        prompt = args.pop(0) if args else None
        break
    if arg in takes_value:
        flags[arg] = args.pop(0)
    elif arg in switches:
        flags[arg] = True
    elif arg.startswith("-") and arg != "-":
        print(f"error: unexpected argument '{{arg}}' found", file=sys.stderr)
        sys.exit(2)
    else:
        prompt = arg
if prompt in (None, "-"):
    prompt = sys.stdin.read()
if not prompt.strip():
    print("No prompt provided.", file=sys.stderr)
    sys.exit(1)
root = Path.cwd()
if "--skip-git-repo-check" not in flags and not (root / ".git").exists():
    print("Not inside a trusted directory and --skip-git-repo-check was not specified.",
          file=sys.stderr)
    sys.exit(1)
if flags.get("--sandbox", flags.get("-s")) != "workspace-write" and "--full-auto" not in flags:
    print("stand-in codex: read-only sandbox, cannot edit", file=sys.stderr)
    sys.exit(1)
home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
(home / "sessions").mkdir(parents=True, exist_ok=True)  # as the real CLI records a session
(home / "sessions" / "rollout.jsonl").write_text(json.dumps({{"prompt": prompt}}) + "\n")
misbehave("codex")
print("Reading prompt from arguments...", file=sys.stderr)
summary = edit(root, prompt)
events = [
    {{"type": "thread.started", "thread_id": "0199-stand-in"}},
    {{"type": "turn.started"}},
    {{"type": "item.completed", "item": {{"id": "item_0", "type": "reasoning",
      "text": "Looking at main.py"}}}},
    {{"type": "item.completed", "item": {{"id": "item_1", "type": "file_change",
      "changes": [{{"path": str(root / "main.py"), "kind": "update"}}],
      "status": "completed"}}}},
    {{"type": "item.completed", "item": {{"id": "item_2", "type": "agent_message",
      "text": summary + " (asked: " + prompt.splitlines()[0] + ")"}}}},
    {{"type": "turn.completed", "usage": {{"input_tokens": 1200, "cached_input_tokens": 200,
      "output_tokens": 80}}}},
]
if "--json" in flags:
    for event in events:
        print(json.dumps(event))
else:
    print(summary)
"""

CLAUDE = r"""
# claude -p [PROMPT] [--output-format text|json|stream-json] [--permission-mode MODE]
#        [--model M] [--allowedTools ...]
args, flags, prompt = sys.argv[1:], {{}}, None
takes_value = {{"--output-format", "--permission-mode", "--model", "--max-turns",
                "--append-system-prompt"}}
while args:
    arg = args.pop(0)
    if arg in ("-p", "--print"):
        flags["print"] = True
    elif arg in takes_value:
        flags[arg] = args.pop(0)
    elif arg in ("--allowedTools", "--disallowedTools"):
        values = []
        while args and not args[0].startswith("-"):
            values.append(args.pop(0))
        flags[arg] = values
    elif arg.startswith("-"):
        print(f"error: unknown option '{{arg}}'", file=sys.stderr)
        sys.exit(1)
    elif prompt is None:
        prompt = arg
if "print" not in flags:
    print("stand-in claude: only the print mode (-p) is implemented", file=sys.stderr)
    sys.exit(1)
if prompt is None:
    prompt = sys.stdin.read()
if not prompt.strip():
    print("Error: Input must be provided either through stdin or as a prompt argument "
          "when using --print", file=sys.stderr)
    sys.exit(1)
misbehave("claude")
if flags.get("--permission-mode") in ("acceptEdits", "bypassPermissions"):
    result = edit(Path.cwd(), prompt)
else:
    result = "I need permission to edit main.py; grant it and run me again."
output = {{"type": "result", "subtype": "success", "is_error": False, "duration_ms": 2310,
          "num_turns": 3, "result": result + " (asked: " + prompt.splitlines()[0] + ")",
          "session_id": "5f1c-stand-in", "total_cost_usd": 0.0123,
          "usage": {{"input_tokens": 900, "output_tokens": 60}}}}
if flags.get("--output-format") == "json":
    print(json.dumps(output))
else:
    print(output["result"])
"""


def install(folder: Path, name: str, mode: str = "fix") -> Path:
    """Write the stand-in `name` (codex or claude) into `folder`, executable; its path."""
    body = {"codex": CODEX, "claude": CLAUDE}[name]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\n" + (COMMON + body).format(mode=mode))
    path.chmod(0o755)
    return path
