"""The LLM coding agent: shows the model the task and the files, reads back file edits."""

from __future__ import annotations

from dataclasses import dataclass, field

from codur.edits import Edit, EditError, check_syntax, parse_edits
from codur.resources import prompt
from codur.session import Session

EDIT_PROMPTS = {"whole_file": "edit_whole_file.md", "search_replace": "edit_search_replace.md"}
KEEP_ATTEMPTS = 3
"""Earlier attempts kept in the conversation (older ones are pruned; the task never is)."""


@dataclass
class Attempt:
    reply: str
    feedback: str


@dataclass
class Proposal:
    """A model reply and the edits read from it (or the reason there are none)."""

    reply: str
    edits: list[Edit]
    error: str | None = None


@dataclass
class CoderAgent:
    session: Session
    profile: str | None = None
    evidence: str | None = None
    """What a check showed before any change (shown with the task)."""
    attempts: list[Attempt] = field(default_factory=list)
    calls: int = 0
    """Model calls so far: each new call samples differently (see ModelClient.variant)."""

    def _messages(self, task: str, files: dict[str, str]) -> list:
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        client = self.session.client(self.profile)
        edit_format = client.profile.edit_format
        shown = "\n\n".join(
            f"{path}\n```python\n{text.rstrip()}\n```" for path, text in files.items()
        )
        evidence = (
            prompt("coder_evidence.md").format(failure=self.evidence) if self.evidence else ""
        )
        request = prompt("coder_task.md").format(
            task=task,
            files=shown or "(no files given)",
            evidence=evidence,
            edit_rules=prompt(EDIT_PROMPTS[edit_format]),
        )
        messages = [SystemMessage(prompt("coder_system.md")), HumanMessage(request)]
        for attempt in self.attempts[-KEEP_ATTEMPTS:]:
            messages += [AIMessage(attempt.reply), HumanMessage(attempt.feedback)]
        return messages

    def propose(self, task: str, files: dict[str, str]) -> Proposal:
        """One model call; returns the reply with its checked edits, or why they are unusable."""
        client = self.session.client(self.profile)
        reply = client.invoke(self._messages(task, files), variation=self.calls)
        self.calls += 1
        text = reply.content if isinstance(reply.content, str) else str(reply.content)
        try:
            edits = parse_edits(text, files, client.profile.edit_format)
            for edit in edits:
                check_syntax(edit)
        except EditError as exc:
            return Proposal(text, [], str(exc))
        return Proposal(text, edits)

    def feedback(self, reply: str, message: str) -> None:
        """Record how the last attempt went, for the next call.

        A reply identical to one already shown is not shown again: small models copy
        their earlier turns verbatim, so repeating a failed reply invites the same one.
        """
        if any(a.reply == reply for a in self.attempts):
            return
        self.attempts.append(Attempt(reply, message))
