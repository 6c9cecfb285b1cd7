"""What `codur agents` and `codur profiles` list: the agents the planner chooses among and
the configured LLM profiles, read from the config and the agent registry. No model is
loaded and no provider is contacted."""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.agents.registry import ResolvedAgent
    from codur.config.schema import CodurConfig, LLMProfile

AGENT_COLUMNS = ["agent", "runs as", "profile", "provider", "model", "tools", "description"]
PROFILE_COLUMNS = ["name", "provider", "model", "endpoint", "api key"]
PROFILE_KEYS = ["provider", "model", "endpoint"]
"""The columns of a profile's row shown as they are."""


def agent_rows(cfg: CodurConfig) -> list[list[str]]:
    """One row per agent reference (`*` marks agents.preferences.default_agent): those
    the planner picks from, then the registered ones no entry or default names."""
    from codur.agents.registry import agent_choices, registered, resolve

    default = _reference(cfg.agents.preferences.default_agent)
    factories = registered()
    rows = []
    offered = agent_choices(cfg)
    others = [f"agent:{n}" for n in factories if f"agent:{n}" not in offered and n != "coder"]
    for reference in [*offered, *others]:
        agent = resolve(reference, cfg)
        profile, provider, model = _runs_on(agent, cfg)
        uses_tools = agent.config is not None and agent.kind in ("coder", "ollama")
        tools = ", ".join(agent.config.tools) if agent.config and uses_tools else ""
        if agent.config is not None and agent.config.description:
            description = agent.config.description
        else:  # a registered agent no config entry describes: its factory's docstring
            description = inspect.getdoc(factories[agent.kind]) or ""
        if reference in others:
            description = "(not offered to the planner) " + description
        mark = "*" if reference == default else ""
        rows.append(
            [
                mark + reference,
                agent.kind,
                profile or "-",
                provider or "-",
                model or "-",
                tools or "-",
                " ".join(description.split("\n\n")[0].split()) or "-",
            ]
        )
    return rows


def _runs_on(agent: ResolvedAgent, cfg: CodurConfig) -> tuple[str, str, str]:
    """(profile, provider, model) of an agent's row; a CLI agent's provider is its CLI."""
    from codur.agents.registry import CLI_KINDS
    from codur.errors import ConfigError

    if agent.kind in CLI_KINDS:
        command = (agent.config.command if agent.config else None) or (
            "codex" if agent.kind == "codex" else "claude"
        )
        return "", f"{command} (CLI)", (agent.config.model if agent.config else None) or ""
    if agent.kind == "ollama":
        entry = agent.config
        base = (entry.profile if entry else None) or "ollama"
        try:
            prof = cfg.profile(agent.profile)[1]
        except ConfigError:
            return base, "(unknown profile)", ""
        return base, f"ollama at {prof.base_url}", prof.model
    profile = agent.profile or cfg.llm.default_profile
    known = cfg.llm.profiles.get(profile)
    if known is None:
        return profile, "(unknown profile)", ""
    return profile, known.provider, known.model


def _reference(name: str) -> str:
    return name if ":" in name else f"agent:{name}"


def profiles(cfg: CodurConfig) -> list[dict[str, object]]:
    """The LLM profiles as `codur profiles --json` prints them; an API key variable is
    named with whether it is set, never its value."""
    return [
        {
            "name": name,
            "default": name == cfg.llm.default_profile,
            "provider": prof.provider,
            "model": prof.model,
            "endpoint": _endpoint(prof),
            "api_key_env": prof.api_key_env or None,
            "api_key_set": bool(prof.api_key_env and os.environ.get(prof.api_key_env)),
        }
        for name, prof in sorted(cfg.llm.profiles.items())
    ]


def profile_rows(cfg: CodurConfig) -> list[list[str]]:
    """One row per LLM profile (`*` marks llm.default_profile)."""
    rows = []
    for facts in profiles(cfg):
        key = facts["api_key_env"] or ""
        if key:
            key += " (set)" if facts["api_key_set"] else " (not set)"
        mark = "*" if facts["default"] else ""
        rows.append([f"{mark}{facts['name']}", *map(str, [facts[k] for k in PROFILE_KEYS]), key])
    return rows


def _endpoint(prof: LLMProfile) -> str:
    return (
        prof.base_url
        or prof.model_file
        or prof.script
        or (f"packaged weights {prof.weights}" if prof.weights else "(provider default)")
    )
