"""agent:ollama: the LLM coding agent speaking to an Ollama server.

It is the coder (`codur.agents.coder`) on the profile its config describes
(`codur.config.agents.ollama_profile`: `host` and `model`, the other settings from a
profile), so the model is reached the way every Ollama profile is: POST /api/chat through
the `ollama` provider, with the coder's prompt fitting, tool loop, retries, budget,
record/replay and edit parsing; nothing of that is written twice. What it adds is the
check before each attempt: GET /api/tags says whether the server is up and has the
model, and when not, the agent cannot run (AgentUnavailable, naming what to install,
start or pull), so the next agent of agents.preferences.fallback_order takes over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codur.agents.coder import CoderAgent
from codur.agents.registry import register
from codur.errors import AgentUnavailable

if TYPE_CHECKING:
    from codur.agents.registry import AgentRequest, ResolvedAgent
    from codur.agents.turn import Turn
    from codur.session import Session

PROBE_TIMEOUT_S = 5.0
"""Seconds the check may take (the profile's `timeout_s` when shorter)."""
INSTALL = "install Ollama (https://ollama.com/download) and start it with `ollama serve`"


@dataclass
class OllamaAgent(CoderAgent):
    def start(self, request: AgentRequest, session: Session, sample: int | None = None) -> Turn:
        if not session.config.runs.replay:  # a replayed run reaches no server
            self.check(session)
        return super().start(request, session, sample)

    def check(self, session: Session) -> None:
        """AgentUnavailable unless the server answers and has the model."""
        import httpx

        name, profile = session.config.profile(self.profile)
        host = (profile.base_url or "").rstrip("/")
        try:
            answer = httpx.get(f"{host}/api/tags", timeout=min(PROBE_TIMEOUT_S, profile.timeout_s))
        except httpx.HTTPError as exc:
            why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise AgentUnavailable(
                f"{name} cannot reach Ollama at {host} ({why}): {INSTALL}"
            ) from None
        models = _model_names(answer)
        if models is None:
            raise AgentUnavailable(
                f"{name}: {host} answered /api/tags with HTTP {answer.status_code} and no "
                "model list: is it an Ollama server?"
            )
        if not has_model(models, profile.model):
            raise AgentUnavailable(
                f"{name}: the Ollama server at {host} does not have the model "
                f"{profile.model}: run `ollama pull {profile.model}`"
            )
        session.bus.emit("agent.ready", agent=name, host=host, model=profile.model)


def _model_names(answer: Any) -> list[str] | None:
    """The model names of an /api/tags answer; None when it is not one."""
    try:
        data = answer.json() if answer.status_code == 200 else None
    except ValueError:
        return None
    listed = data.get("models") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        return None
    return [str(m.get("name", "")) for m in listed if isinstance(m, dict)]


def has_model(names: list[str], model: str) -> bool:
    """Whether `model` is among the server's models (`name` means `name:latest`)."""
    return model in names or (":" not in model and f"{model}:latest" in names)


@register("ollama")
def build_ollama(agent: ResolvedAgent) -> OllamaAgent:
    """The coding agent on an Ollama server (host and model from its config; needs
    Ollama running, see docs/agents.md)."""
    return OllamaAgent(agent.config, agent.profile)
