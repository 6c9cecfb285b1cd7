"""The LLM coding agent: a tool loop, then file edits read from its final reply.

Tools are called natively (`bind_tools`) when the profile supports it, otherwise read
from the reply text; results go back to the model, failures as observations. The final
reply's edits (whole files or SEARCH/REPLACE blocks, per the profile's edit_format) are
syntax-checked and written atomically after a restore point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codur.agents.registry import AgentRequest, AgentResult, register
from codur.agents.tool_detection import detect_tool_calls
from codur.edits import EditError, check_syntax, parse_edits
from codur.resources import prompt
from codur.scope import ScopeError

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from codur.config.schema import AgentConfig
    from codur.session import Session

EDIT_PROMPTS = {
    "whole_file": "edit_whole_file.md",
    "search_replace": "edit_search_replace.md",
    "functions": "edit_functions.md",
}


def task_message(request: AgentRequest, edit_format: str) -> str:
    """The first user turn: files, what a check showed, the task, the answer format."""
    shown = "\n\n".join(
        f"{path}\n```{'python' if path.endswith('.py') else ''}\n{text.rstrip()}\n```"
        for path, text in request.files.items()
    )
    evidence = (
        prompt("coder_evidence.md").format(failure=request.evidence) if request.evidence else ""
    )
    return prompt("coder_task.md").format(
        files=shown or "(no files given)",
        evidence=evidence,
        task=request.task,
        edit_rules=prompt(EDIT_PROMPTS[edit_format]),
    )


@dataclass
class CoderAgent:
    config: AgentConfig | None
    profile: str | None

    def run(self, request: AgentRequest, session: Session) -> AgentResult:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        from codur.tools.registry import TaskType, langchain_tools, list_tools_for_tasks

        client = session.client(self.profile)
        wanted = self.config.tools if self.config and client.profile.agent_tools else []
        task_types = [TaskType(t) for t in wanted]
        names = [s.name for s in list_tools_for_tasks(task_types)] if task_types else []
        native = bool(names) and client.profile.native_tools
        system = prompt("coder_system.md")
        if names and not native:
            from codur.tools.registry import prompt_section

            system += "\n\n" + prompt_section(task_types) + "\n\n" + prompt("tool_text_calls.md")
        base: list[BaseMessage] = [
            SystemMessage(system),
            HumanMessage(task_message(request, client.profile.edit_format)),
            *request.history,
        ]
        tools = langchain_tools(task_types) if native else []
        new: list[BaseMessage] = []
        rounds = session.config.runtime.max_tool_iterations
        budget = reply_budget(request.files)
        before = set(session.restore.saved) if session.restore else set()
        for round_no in range(rounds + 1):
            reply = client.invoke(
                base + new, tools=tools, **client.sampling(session.usage.calls), max_tokens=budget
            )
            text = reply.content if isinstance(reply.content, str) else str(reply.content)
            calls: list[dict[str, Any]] = list(reply.tool_calls)
            if not calls and names and session.config.runtime.detect_tool_calls_from_text:
                calls = detect_tool_calls(text, names)
            if not calls or round_no == rounds:
                break
            new += run_tools(reply, text, calls, session)
        after = set(session.restore.saved) if session.restore else set()
        result = apply_edits(text, request.files, client.profile.edit_format, session)
        result.messages = [*new, AIMessage(text)]
        result.files_changed = sorted(set(result.files_changed) | (after - before))
        return result


def reply_budget(files: dict[str, str]) -> int:
    """Output tokens a reply can need: every file in full (~3 characters a token, with
    room to grow) plus some prose. Past that a small model is only repeating itself."""
    return 400 + int(sum(len(text) for text in files.values()) / 3 * 1.5)


def run_tools(reply: Any, text: str, calls: list[dict[str, Any]], session: Session) -> list:
    """Run the calls through the registry; results as ToolMessages (native) or text."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from codur.tools.registry import invoke

    ctx = session.tool_context()
    results = [invoke(c["name"], c["args"], ctx) for c in calls]
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


def apply_edits(
    text: str, files: dict[str, str], edit_format: str, session: Session
) -> AgentResult:
    """Write the reply's edits (only real changes); an unusable edit becomes the error."""
    try:
        edits = parse_edits(text, files, edit_format)
        for edit in edits:
            check_syntax(edit)
    except EditError as exc:
        return AgentResult(text, error=str(exc))
    changed, refused = [], []
    for edit in edits:
        target = session.ws.resolve(edit.path)
        if target.is_file() and target.read_text(encoding="utf-8") == edit.content:
            continue
        try:
            written = session.write_file(edit.path, edit.content, by="coder")
        except ScopeError as exc:
            refused.append(f"{edit.path} was not changed: {exc}")
            continue
        if written != edit.content:
            refused.append(
                f"only the code under test in {edit.path} was changed; your changes to its "
                "harness (the code that sets up inputs and checks results) were left out"
            )
        changed.append(edit.path)
    if refused and not changed:
        return AgentResult(text, error="\n".join(refused))
    return AgentResult(text, files_changed=changed, notes=refused)


@register("coder")
def build_coder(config: AgentConfig | None, profile: str | None) -> CoderAgent:
    return CoderAgent(config, profile or (config.profile if config else None))
