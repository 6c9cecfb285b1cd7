"""The LLM coding agent: a model <-> tools loop, then file edits read from its final reply.

`start` prepares the turn (the prompt, the tools offered: natively with `bind_tools` when
the profile supports it, otherwise described in the prompt and read from the reply
text); the loop (`codur.agents.loop`, a subgraph of the graph's execute step) runs it;
`settle` reads the final reply as a proposal (`codur.agents.proposal`): its edits parsed
in whatever shape they came, syntax-checked and admitted by the edit scope; a reply cut
at the token limit, or one identical to an earlier reply, is not applied. `run` does all
three; `propose` only makes the proposal (sampling tries several before writing one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from codur.agents.prompting import build_messages
from codur.agents.proposal import Proposal, copying, read_reply, write
from codur.agents.registry import AgentRequest, AgentResult, register
from codur.agents.reply_shape import COPIED, FENCE_END, block_done, close_fence, copied_view
from codur.agents.salvage import salvage
from codur.errors import ConfigError
from codur.memory import preferences_section
from codur.models.finish import finish_reason, truncated

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from codur.agents.registry import ResolvedAgent
    from codur.agents.turn import Turn
    from codur.config.schema import AgentConfig
    from codur.session import Session
    from codur.tools.registry import ToolSpec


@dataclass
class CoderAgent:
    config: AgentConfig | None
    profile: str | None
    loops: ClassVar[bool] = True
    proposes: ClassVar[bool] = True

    def run(self, request: AgentRequest, session: Session) -> AgentResult:
        from codur.agents.loop import run_loop

        turn = self.start(request, session)
        return self.settle(turn, run_loop(turn, session), session)

    def start(self, request: AgentRequest, session: Session, sample: int | None = None) -> Turn:
        """The attempt's turn. `sample`: the k-th differently sampled reply (None: the
        run's next call decides)."""
        from codur.agents.turn import Turn
        from codur.tools.offered import langchain_tools
        from codur.tools.registry import TaskType, list_tools_for_tasks

        client = session.client(self.profile)
        wanted = self.config.tools if self.config and client.profile.agent_tools else []
        task_types = [TaskType(t) for t in wanted]
        if request.plan and task_types:  # plan_verify: the todo list and attempt_completion
            task_types.append(TaskType.PLANNING)
        specs = list_tools_for_tasks(task_types) if task_types else []
        if self.config is not None and self.config.tool_names is not None:
            planning = [s.name for s in specs if TaskType.PLANNING in s.task_types]
            specs = only(specs, [*self.config.tool_names, *planning])  # attempt_completion stays
        names = [s.name for s in specs]
        native = bool(names) and client.profile.native_tools
        completion = bool(request.plan) and bool(names)  # the only way out: attempt_completion
        system = session.prompts.render("plan_agent" if completion else "coder")
        system += preferences_section(session.prompts, request.preferences)
        if request.context:
            system += "\n\n" + request.context
        if names and not native:
            from codur.tools.offered import prompt_section

            calls = session.prompts.render("tool_text_calls")
            system += "\n\n" + prompt_section(task_types) + "\n\n" + calls
        rules = None
        if completion:
            from codur.tools.todo import checklist

            todos = checklist(request.todos) or "(empty)"
            rules = session.prompts.render("plan_agent_rules", todos=todos)
        base, shape = build_messages(request, client, system, session.prompts, rules)
        planning = session.config.planning
        bound = [t for t in langchain_tools(task_types) if t.name in names] if native else []
        if sample is None:  # the first attempt is the profile's own (near-greedy) sampling
            sample = session.usage.calls if request.attempts else 0
        return Turn(
            profile=self.profile,
            prompt=tuple(base),
            names=tuple(names),
            bound=tuple(bound),
            native=native,
            budget=shape.budget,
            stop=() if names else shape.stop,
            sample=sample,
            max_rounds=(
                planning.max_agent_rounds
                if completion
                else session.config.runtime.max_tool_iterations
            ),
            detect_from_text=session.config.runtime.detect_tool_calls_from_text,
            request=request,
            edit_format=shape.edit_format,
            written_before=frozenset(session.changes.written()),
            owner=self,
            completion=completion,
        )

    def settle(self, turn: Turn, turns: list[BaseMessage], session: Session) -> AgentResult:
        """The attempt's result from the loop's turns: the final reply read and written
        (never for a repeated reply or an unusable one)."""
        request = turn.request
        assert request is not None
        if turn.completion:
            return self.completed(turn, turns, session)
        proposal, messages = self.conclude(turn, turns, session)
        result = AgentResult(proposal.reply, messages=messages, notes=list(proposal.notes))
        result.digest, result.truncated = proposal.digest, proposal.truncated
        if proposal.digest in request.seen:
            result.duplicate = True
        elif proposal.error is not None:
            result.error = proposal.error
        else:
            result.files_changed, declined = write(proposal, session)
            result.notes += declined
            if declined and not result.files_changed:
                result.error = "; ".join(declined)
        after = set(session.changes.written())
        result.files_changed = sorted(set(result.files_changed) | (after - turn.written_before))
        return result

    def completed(self, turn: Turn, turns: list[BaseMessage], session: Session) -> AgentResult:
        """A loop that ends with attempt_completion (plan_verify mode): its files were
        changed by the tools, its result is the completion (None: it never came)."""
        from codur.agents.loop import model_view
        from codur.agents.loop_routes import completion

        text = completion(turns)
        result = AgentResult(text or "", messages=model_view(turns, turn.native), completion=text)
        result.files_changed = sorted(set(session.changes.written()) - turn.written_before)
        if text is None:
            session.bus.emit("agent.tool_limit", rounds=turn.max_rounds)
            result.notes.append(f"no attempt_completion in {turn.max_rounds} rounds")
        return result

    def propose(
        self, request: AgentRequest, session: Session, sample: int | None = None
    ) -> tuple[Proposal, list[BaseMessage]]:
        """One attempt, not written: the loop, then the final reply read as a proposal."""
        from codur.agents.loop import run_loop

        turn = self.start(request, session, sample)
        return self.conclude(turn, run_loop(turn, session), session)

    def conclude(
        self, turn: Turn, turns: list[BaseMessage], session: Session
    ) -> tuple[Proposal, list[BaseMessage]]:
        """The final reply read as a proposal; the turns for the run's conversation."""
        from langchain_core.messages import AIMessage

        from codur.agents.loop import model_view
        from codur.agents.loop_routes import hit_cap, last_reply

        assert turn.request is not None
        reply = last_reply(turns) or AIMessage("")
        text = reply.content if isinstance(reply.content, str) else str(reply.content)
        cut = truncated(reply)
        if COPIED in turn.stop and finish_reason(reply) == "stop" and copied_view(text):
            kept = salvage(text, turn.request.files, turn.edit_format, session)
            usage = reply.usage_metadata or {}
            session.bus.emit(
                "agent.copied_view",
                tokens=usage.get("output_tokens"),
                budget=turn.budget,
                salvaged=sorted(kept.sources) if kept else [],
            )
            proposal = kept or copying(text)
            return proposal, [*model_view(turns[:-1], turn.native), AIMessage(text)]
        one_block = FENCE_END in turn.stop
        if one_block and finish_reason(reply) == "stop":  # the server dropped the fence
            text = close_fence(text)
        elif one_block and cut and block_done(text):
            cut = False
            session.bus.emit("agent.prose_cut", tokens=turn.budget)
        kept = None
        if cut and turn.edit_format == "functions":
            kept = salvage(text, turn.request.files, turn.edit_format, session, cut=True)
            session.bus.emit(
                "agent.cut_salvaged",
                budget=turn.budget,
                salvaged=sorted(kept.sources) if kept else [],
            )
        proposal = kept or read_reply(text, turn.request.files, turn.edit_format, session, cut)
        if hit_cap(turns):
            limit = f"tool-call limit reached ({turn.max_rounds} rounds): answer without tools"
            session.bus.emit("agent.tool_limit", rounds=turn.max_rounds)
            proposal = replace(proposal, notes=[*proposal.notes, limit])
        shown = model_view(turns[:-1], turn.native)
        return proposal, [*shown, AIMessage(text)]


@register("coder")
def build_coder(agent: ResolvedAgent) -> CoderAgent:
    """The LLM coding agent: edits files and fixes bugs with a profile's model and tools."""
    return CoderAgent(agent.config, agent.profile)


def only(specs: list[ToolSpec], names: list[str]) -> list[ToolSpec]:
    """The tools named in `names` among `specs`; ConfigError for a name that is none."""
    from codur.tools.registry import all_tools

    unknown = sorted(set(names) - set(all_tools()))
    if unknown:
        raise ConfigError(
            f"agents.configs.*.tool_names: unknown tool {', '.join(unknown)} "
            f"(valid: {', '.join(sorted(all_tools()))})"
        )
    return [s for s in specs if s.name in names]
