"""agent:claude_code: Anthropic's Claude Code CLI, run in its print mode (`claude -p`).

The command line (flags of Claude Code 1.x and 2.x, as its headless-mode docs describe
them):

    claude -p PROMPT --output-format json --permission-mode acceptEdits [--model M] [ARGS]

`-p` answers once and exits; `--permission-mode acceptEdits` lets it edit files without
asking (other tools that need permission, such as shell commands, are refused unless
ARGS allow them, e.g. `--allowedTools "Bash(python:*)"`); `--output-format json` prints
one JSON object: the reply is its `result`, `is_error` (or a `subtype` other than
`success`) is a failure, `usage` and `total_cost_usd` the cost.

Its state it may write (`SPEC.writable`) leaves out `~/.claude/shell-snapshots` and
`~/.claude/session-env`: Claude Code sources what is there before each Bash command of
the user's own, unconfined sessions, so a confined run could plant commands in them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from codur.agents.external import CliAgent, CliSpec, Parsed, agent_config
from codur.agents.registry import register

if TYPE_CHECKING:
    from codur.agents.registry import ResolvedAgent
    from codur.config.agents import AgentConfig


def argv(executable: str, prompt: str, config: AgentConfig) -> list[str]:
    model = ["--model", config.model] if config.model else []
    flags = ["--output-format", "json", "--permission-mode", "acceptEdits"]
    return [executable, "-p", prompt, *flags, *model, *config.args]


def parse(stdout: str) -> Parsed:
    """The reply, error and usage in `claude -p --output-format json` output."""
    result = _result(stdout)
    if result is None:
        return Parsed("", "no result in its output (expected one JSON object)" if stdout else None)
    reply = str(result.get("result") or "")
    failed = result.get("is_error") is True or result.get("subtype", "success") != "success"
    error = (reply or str(result.get("subtype"))) if failed else None
    usage = {k: v for k, v in (result.get("usage") or {}).items() if isinstance(v, int)}
    if isinstance(result.get("num_turns"), int):
        usage["num_turns"] = result["num_turns"]
    return Parsed(reply, error, usage)


def _result(stdout: str) -> dict[str, Any] | None:
    """The result object: the whole output, else its last line that is one."""
    for text in (stdout, *reversed(stdout.splitlines())):
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("type", "result") == "result":
            return data
    return None


SPEC = CliSpec(
    executable="claude",
    install="npm install -g @anthropic-ai/claude-code (then run `claude` once to log in)",
    env_allow=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    writable=(
        "~/.claude/projects",
        "~/.claude/todos",
        "~/.claude/statsig",
        "~/.claude/file-history",
        "~/.claude/debug",
    ),
    files=("~/.claude/.credentials.json", "~/.claude/history.jsonl"),
    argv=argv,
    parse=parse,
)


@register("claude_code")
def build_claude_code(agent: ResolvedAgent) -> CliAgent:
    """Anthropic's Claude Code CLI (`claude -p`), editing the workspace itself (needs
    `claude`: npm install -g @anthropic-ai/claude-code)."""
    return CliAgent(SPEC, agent.reference, agent_config(agent.config, "claude_code"))
