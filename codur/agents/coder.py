"""The LLM coding agent: a tool loop, then file edits read from its final reply.

Tools are called natively (`bind_tools`) when the profile supports it, otherwise read
from the reply text; results go back to the model, failures as observations. The final
reply becomes a proposal (`codur.agents.proposal`): its edits parsed in whatever shape
they came, syntax-checked and admitted by the edit scope; a reply cut at the token limit,
or one identical to an earlier reply, is not applied. `run` writes the proposal;
`propose` only makes it (sampling tries several before writing one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codur.agents.prompting import build_messages
from codur.agents.proposal import Proposal, read_reply, write
from codur.agents.registry import AgentRequest, AgentResult, register
from codur.agents.tool_detection import detect_tool_calls
from codur.models.client import truncated
from codur.resources import prompt

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from codur.config.schema import AgentConfig
    from codur.session import Session


@dataclass
class CoderAgent:
    config: AgentConfig | None
    profile: str | None

    def run(self, request: AgentRequest, session: Session) -> AgentResult:
        before = set(session.written())
        proposal, messages = self.propose(request, session)
        after = set(session.written())
        result = AgentResult(proposal.reply, messages=messages, notes=list(proposal.notes))
        result.digest, result.truncated = proposal.digest, proposal.truncated
        if request.answer:
            pass  # an answer: its reply is the result, and nothing in it is written
        elif proposal.digest in request.seen:
            result.duplicate = True
        elif proposal.error is not None:
            result.error = proposal.error
        else:
            result.files_changed, declined = write(proposal, session)
            result.notes += declined
            if declined and not result.files_changed:
                result.error = "; ".join(declined)
        result.files_changed = sorted(set(result.files_changed) | (after - before))
        return result

    def propose(
        self, request: AgentRequest, session: Session, sample: int | None = None
    ) -> tuple[Proposal, list[BaseMessage]]:
        """One attempt: the tool loop, then the final reply read as a proposal. `sample`:
        the k-th differently sampled reply (None: the run's next call decides)."""
        from langchain_core.messages import AIMessage

        from codur.tools.registry import TaskType, langchain_tools, list_tools_for_tasks

        client = session.client(self.profile)
        wanted = self.config.tools if self.config and client.profile.agent_tools else []
        task_types = [TaskType(t) for t in wanted]
        specs = list_tools_for_tasks(task_types) if task_types else []
        names = [s.name for s in specs if not (request.answer and s.writes)]
        native = bool(names) and client.profile.native_tools
        system = prompt("coder_system.md")
        if names and not native:
            from codur.tools.registry import prompt_section

            system += "\n\n" + prompt_section(task_types) + "\n\n" + prompt("tool_text_calls.md")
        base, budget, edit_format = build_messages(request, client, system)
        tools = [t for t in langchain_tools(task_types) if t.name in names] if native else []
        new: list[BaseMessage] = []
        rounds = session.config.runtime.max_tool_iterations
        if sample is None:  # the first attempt is the profile's own (near-greedy) sampling
            sample = session.usage.calls if request.attempts else 0
        variation = sample
        for round_no in range(rounds + 1):
            reply = client.invoke(
                base + new, tools=tools, **client.sampling(variation), max_tokens=budget
            )
            text = reply.content if isinstance(reply.content, str) else str(reply.content)
            calls: list[dict[str, Any]] = list(reply.tool_calls)
            if not calls and names and session.config.runtime.detect_tool_calls_from_text:
                calls = detect_tool_calls(text, names)
            if not calls or round_no == rounds:
                break
            new += run_tools(reply, text, calls, session, set(names) if request.answer else None)
            variation = session.usage.calls
        proposal = read_reply(text, request.files, edit_format, session, truncated(reply))
        return proposal, [*new, AIMessage(text)]


def run_tools(
    reply: Any,
    text: str,
    calls: list[dict[str, Any]],
    session: Session,
    allowed: set[str] | None = None,
) -> list:
    """Run the calls through the registry (with `allowed`, a tool not in it fails as an
    observation: an answer never writes); results as ToolMessages (native) or text."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from codur.tools.registry import ToolResult, invoke

    ctx = session.tool_context()
    results = [
        invoke(c["name"], c["args"], ctx)
        if allowed is None or c["name"] in allowed
        else ToolResult(c["name"], False, f"{c['name']} is not available here", None, 0.0)
        for c in calls
    ]
    if reply.tool_calls:
        return [reply] + [
            ToolMessage(
                r.output,
                tool_call_id=c["id"],
                name=c["name"],
                status="success" if r.ok else "error",
            )
            for c, r in zip(calls, results, strict=True)
        ]
    shown = "\n\n".join(
        f"Result of {c['name']} ({'ok' if r.ok else 'error'}):\n{r.output}"
        for c, r in zip(calls, results, strict=True)
    )
    return [AIMessage(text), HumanMessage(shown)]


@register("coder")
def build_coder(config: AgentConfig | None, profile: str | None) -> CoderAgent:
    """The LLM coding agent: edits files and fixes bugs with a profile's model and tools."""
    return CoderAgent(config, profile or (config.profile if config else None))
