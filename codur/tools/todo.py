"""The todo list tools (plan_verify mode): `todo_write` replaces the task's list,
`todo_read` shows it.

The list lives in the graph state (`todos`); the agent loop puts it on the tool context
before a round of tools and takes it back after (`ToolContext.todos`). Every change is
announced as a `todo.updated` event (`items: [{"text", "status"}]`), which the terminal
shows as a checklist line and the debug log keeps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Literal

from codur.events import EventBus
from codur.tools.context import Ctx, ToolError
from codur.tools.registry import TaskType, register_tool

TodoStatus = Literal["pending", "in_progress", "done"]

MAX_ITEMS = 30
"""Items one list may hold (a plan is a short list; more is a model looping)."""

MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
"""How each status is drawn in a checklist."""


@dataclass(frozen=True)
class TodoItem:
    """One item of the task's todo list."""

    text: str
    """What to do, in a few words."""
    status: TodoStatus = "pending"
    """pending, in_progress (being worked on) or done."""


@dataclass(frozen=True)
class TodoList:
    """The list as a tool returns it; it reads as a checklist."""

    items: tuple[TodoItem, ...]

    def __str__(self) -> str:
        return checklist(self.items) or "(the todo list is empty)"


def checklist(items: Iterable[TodoItem]) -> str:
    """The items one a line: `[x] done`, `[~] in progress`, `[ ] pending`."""
    return "\n".join(f"{MARKS[i.status]} {i.text}" for i in items)


def announce(bus: EventBus, items: Iterable[TodoItem]) -> None:
    """The `todo.updated` event for the list as it is now."""
    bus.emit("todo.updated", items=[asdict(i) for i in items])


@register_tool(TaskType.PLANNING)
def todo_write(ctx: Ctx, items: list[TodoItem]) -> TodoList:
    """Replace the task's todo list: give every item, in order, each with its status.

    Mark a step in_progress when you start it and done when it is done.

    Args:
        items: The whole list: each item's text and its status (pending, in_progress or done).
    """
    cleaned = [TodoItem(" ".join(i.text.split()), i.status) for i in items]
    if any(not i.text for i in cleaned):
        raise ToolError("every todo item needs a text")
    if len(cleaned) > MAX_ITEMS:
        raise ToolError(f"a todo list holds at most {MAX_ITEMS} items, not {len(cleaned)}")
    ctx.todos = cleaned
    announce(ctx.bus, cleaned)
    return TodoList(tuple(cleaned))


@register_tool(TaskType.PLANNING)
def todo_read(ctx: Ctx) -> TodoList:
    """The task's todo list as it is now, one item a line with its status."""
    return TodoList(tuple(ctx.todos))
