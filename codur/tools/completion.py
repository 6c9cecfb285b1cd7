"""`attempt_completion`: the agent says the task is done (plan_verify mode).

It is the only way out of the agent loop in that mode: a reply without a tool call gets a
reminder and another turn (codur.agents.loop). The call itself changes nothing; the loop
sees it succeed and ends, and the result is judged next: by the checks where the folder
has them, by the model verifier (codur/graph/nodes/verifier.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from codur.tools.context import Ctx, ToolError
from codur.tools.registry import TaskType, register_tool


@dataclass(frozen=True)
class Completion:
    """The agent's account of its work, submitted for verification."""

    result: str

    def __str__(self) -> str:
        return "Submitted: your work is checked against the task next."


@register_tool(TaskType.PLANNING)
def attempt_completion(ctx: Ctx, result: str) -> Completion:
    """Finish the task: call this once the work is done and checked. It is the only way
    to finish; your work is then verified against the task.

    Args:
        result: What you did and how you checked it, in a few sentences (the answer, for
            a question).
    """
    text = result.strip()
    if not text:
        raise ToolError("say what you did in `result` (it is checked against the task)")
    return Completion(text)
