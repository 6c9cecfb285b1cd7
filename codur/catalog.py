"""What `codur agents` and `codur profiles` list: the agents the planner chooses among and
the configured LLM profiles, read from the config and the agent registry. No model is
loaded and no provider is contacted."""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.config.schema import CodurConfig, LLMProfile

AGENT_COLUMNS = ["agent", "runs as", "profile", "provider", "model", "tools", "description"]
PROFILE_COLUMNS = ["name", "provider", "model", "endpoint", "api key"]


def agent_rows(cfg: CodurConfig) -> list[list[str]]:
    """One row per agent reference (`*` marks agents.preferences.default_agent)."""
    from codur.agents.registry import agent_choices, registered, resolve

    default = _reference(cfg.agents.preferences.default_agent)
    factories = registered()
    rows = []
    for reference in agent_choices(cfg):
        agent = resolve(reference, cfg)
        uses_profile = agent.kind == "coder"
        profile = (agent.profile or cfg.llm.default_profile) if uses_profile else None
        known = cfg.llm.profiles.get(profile) if profile else None
        if profile and known is None:
            provider, model = "(unknown profile)", ""
        else:
            provider, model = (known.provider, known.model) if known else ("", "")
        tools = ", ".join(agent.config.tools) if agent.config else ""
        if agent.config is not None:
            description = agent.config.description
        else:  # a registered agent no config entry describes: its factory's docstring
            description = inspect.getdoc(factories[agent.kind]) or ""
        mark = "*" if reference == default else ""
        rows.append(
            [
                mark + reference,
                agent.kind,
                profile or "-",
                provider or "-",
                model or "-",
                tools or "-",
                description.split("\n")[0] or "-",
            ]
        )
    return rows


def _reference(name: str) -> str:
    return name if ":" in name else f"agent:{name}"


def profile_rows(cfg: CodurConfig) -> list[list[str]]:
    """One row per LLM profile (`*` marks llm.default_profile); an API key variable is
    named with whether it is set, never its value."""
    rows = []
    for name, prof in sorted(cfg.llm.profiles.items()):
        key = prof.api_key_env or ""
        if key:
            key += " (set)" if os.environ.get(key) else " (not set)"
        mark = "*" if name == cfg.llm.default_profile else ""
        rows.append([mark + name, prof.provider, prof.model, _endpoint(prof), key])
    return rows


def _endpoint(prof: LLMProfile) -> str:
    return (
        prof.base_url
        or prof.model_file
        or prof.script
        or (f"packaged weights {prof.weights}" if prof.weights else "(provider default)")
    )
