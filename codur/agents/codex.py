"""agent:codex: OpenAI's Codex CLI, run as `codex exec` (its non-interactive mode).

The command line (flags of codex-cli 0.44 and later, as its docs/exec.md describes them):

    codex exec --json --sandbox workspace-write --skip-git-repo-check [--model M] [ARGS] -- PROMPT

`--sandbox workspace-write` lets it edit the workspace and run commands there (inside
Codex's own sandbox, inside Codur's; `--full-auto` is the older spelling of the same),
`--skip-git-repo-check` lets it work in a folder that is no git repository, `--json`
prints its events as JSON lines on stdout: the reply is the text of the last
`item.completed` event whose item is an `agent_message`; `turn.failed` (and an `error`
event not followed by a completed turn) is a failure; `turn.completed` carries the token
usage. The event stream of older versions (`{"msg": {"type": "agent_message",
"message": ...}}`) is read too.
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
    flags = ["--json", "--sandbox", "workspace-write", "--skip-git-repo-check"]
    return [executable, "exec", *flags, *model, *config.args, "--", prompt]


def parse(stdout: str) -> Parsed:
    """The reply, error and usage in `codex exec --json` output."""
    reply, error, completed = "", None, False
    usage: dict[str, int] = {}
    for event in _events(stdout):
        kind = event.get("type")
        item = event.get("item") if isinstance(event.get("item"), dict) else {}
        msg = event.get("msg") if isinstance(event.get("msg"), dict) else {}
        if kind == "item.completed" and item.get("type") == "agent_message":
            reply = str(item.get("text", ""))
        elif msg.get("type") == "agent_message":  # before codex-cli 0.44
            reply = str(msg.get("message", ""))
        elif kind == "turn.completed":
            completed = True
            for key, value in (event.get("usage") or {}).items():
                if isinstance(value, int):
                    usage[key] = usage.get(key, 0) + value
        elif kind == "turn.failed":
            error = str((event.get("error") or {}).get("message", "the turn failed"))
        elif kind == "error" or msg.get("type") == "error":
            error = str(event.get("message") or msg.get("message") or "error")
    return Parsed(reply, None if completed else error, usage)  # errors it recovered from


def _events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # not an event (a warning printed on stdout)
        if isinstance(event, dict):
            events.append(event)
    return events


SPEC = CliSpec(
    executable="codex",
    install="npm install -g @openai/codex (then `codex login`)",
    env_allow=("OPENAI_API_KEY", "CODEX_API_KEY"),
    writable=("~/.codex/sessions", "~/.codex/log"),
    files=("~/.codex/auth.json",),
    argv=argv,
    parse=parse,
)


@register("codex")
def build_codex(agent: ResolvedAgent) -> CliAgent:
    """OpenAI's Codex CLI (`codex exec`), editing the workspace itself (needs `codex`:
    npm install -g @openai/codex)."""
    return CliAgent(SPEC, agent.reference, agent_config(agent.config, "codex"))
