"""The registered tools as a model is offered them: listed in a system prompt by task
type (`prompt_section`), or as langchain-core tools for `bind_tools` (`langchain_tools`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from codur.tools.context import ToolContext
from codur.tools.registry import TaskType, ToolSpec, invoke, list_tools_for_tasks

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool, StructuredTool


def prompt_section(task_types: Iterable[TaskType] | None = None) -> str:
    """The markdown tool list for a system prompt, grouped by task type."""
    order = list(task_types) if task_types is not None else list(TaskType)
    groups: dict[TaskType, list[ToolSpec]] = {t: [] for t in order}
    for spec in list_tools_for_tasks(order):
        groups[next(t for t in order if t in spec.task_types)].append(spec)
    lines = ["## Available tools"]
    for task_type, specs in groups.items():
        if specs:
            lines += ["", f"### {task_type.title}"]
            lines += [f"- {s.usage}: {s.description}" for s in specs]
    return "\n".join(lines)


def langchain_tools(
    task_types: Iterable[TaskType] | None = None, ctx: ToolContext | None = None
) -> list[BaseTool]:
    """langchain-core tools for `bind_tools`. With `ctx`, calling one runs `invoke`."""
    specs = list_tools_for_tasks(task_types)
    if ctx is None:
        return [s.structured_tool for s in specs]
    from langchain_core.tools import StructuredTool

    def bound(spec: ToolSpec) -> StructuredTool:
        def run(**kwargs: Any) -> str:
            return invoke(spec.name, kwargs, ctx).output

        return StructuredTool(
            name=spec.name,
            description=spec.structured_tool.description,
            args_schema=spec.schema,
            func=run,
        )

    return [bound(s) for s in specs]
