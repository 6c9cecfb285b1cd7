"""The tool registry: typed functions, their task types, and dispatch (how a model is
offered them: `codur.tools.offered`).

A tool is a function `name(ctx, arg: type, ...) -> value` with a Google-style docstring
and one `@register_tool(TaskType...)` line; its schema is derived from the signature by
langchain-core (`ctx` is injected, so it never appears in the schema). Everything calls
tools through `invoke`, which turns unknown tools, bad arguments and tool failures into
an error ToolResult the model can read and correct.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import importlib
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, Any

from codur.errors import ApprovalRequired, CodurError
from codur.tools.context import ToolContext

if TYPE_CHECKING:
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel


class TaskType(str, Enum):
    """What a tool is for; prompts list the tools of the task types an agent needs."""

    FILE_OPERATION = "file_operation"
    SEARCH = "search"
    STRUCTURED_DATA = "structured_data"
    CODE_VALIDATION = "code_validation"
    CODE_EDIT = "code_edit"
    EXPLANATION = "explanation"
    GIT = "git"
    WEB = "web"
    MCP = "mcp"
    PLANNING = "planning"

    @property
    def title(self) -> str:
        return _TITLES[self]


_TITLES = {
    TaskType.FILE_OPERATION: "Files",
    TaskType.SEARCH: "Search",
    TaskType.STRUCTURED_DATA: "Structured data (JSON, YAML, INI)",
    TaskType.CODE_VALIDATION: "Running and checking code",
    TaskType.CODE_EDIT: "Editing code",
    TaskType.EXPLANATION: "Understanding code",
    TaskType.GIT: "Git",
    TaskType.WEB: "Web",
    TaskType.MCP: "MCP servers",
    TaskType.PLANNING: "Planning and finishing",
}

_FAMILIES = (
    "fs",
    "restore",
    "search",
    "code",
    "data",
    "python",
    "shell",
    "pyast",
    "git",
    "mcp",
    "web",
    "todo",
    "completion",
)
"""The modules whose `@register_tool` functions make up the registry, imported on first use."""


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call; `output` is what the model reads."""

    tool: str
    ok: bool
    output: str
    value: Any = None
    """The tool's typed return value (None when the call failed)."""
    duration_s: float = 0.0


@dataclass(frozen=True)
class ToolSpec:
    """A registered tool: the function, its task types, and its derived schema."""

    name: str
    func: Callable[..., Any]
    task_types: tuple[TaskType, ...]
    writes: bool = False
    """The tool changes files: calls hold the context's write lock."""

    @cached_property
    def structured_tool(self) -> StructuredTool:
        from langchain_core.tools import StructuredTool

        return StructuredTool.from_function(
            self.func,
            name=self.name,
            parse_docstring=True,
            error_on_invalid_docstring=bool(self.params),  # an Args: section is required
        )

    @property
    def schema(self) -> type[BaseModel]:
        """The arguments the model gives (pydantic model, without the injected ctx)."""
        return self.structured_tool.tool_call_schema  # type: ignore[return-value]

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.func.__doc__ or "").split("\n\n")[0].replace("\n", " ")

    @cached_property
    def params(self) -> tuple[inspect.Parameter, ...]:
        return tuple(inspect.signature(self.func).parameters.values())[1:]

    @property
    def usage(self) -> str:
        """`name(arg, arg=default)` as shown in prompts and error messages."""
        parts = [
            p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}"
            for p in self.params
        ]
        return f"{self.name}({', '.join(parts)})"


_TOOLS: dict[str, ToolSpec] = {}
_load_lock = threading.Lock()
_loaded = False


def register_tool(*task_types: TaskType, writes: bool = False) -> Callable[[Callable], Callable]:
    """Register the decorated function as a tool for `task_types`."""
    if not task_types:
        raise ValueError("a tool needs at least one TaskType")

    def register(func: Callable) -> Callable:
        if func.__name__ in _TOOLS:
            raise ValueError(f"tool {func.__name__} is registered twice")
        _TOOLS[func.__name__] = ToolSpec(func.__name__, func, task_types, writes)
        return func

    return register


def all_tools() -> dict[str, ToolSpec]:
    """Every registered tool by name (the tool families load on the first call)."""
    global _loaded
    with _load_lock:
        if not _loaded:
            for family in _FAMILIES:
                importlib.import_module(f"codur.tools.{family}")
            _loaded = True
    return _TOOLS


def list_tools_for_tasks(task_types: Iterable[TaskType] | None = None) -> list[ToolSpec]:
    """The tools annotated with any of `task_types` (all tools for None), by name."""
    wanted = set(task_types) if task_types is not None else set(TaskType)
    return sorted(
        (t for t in all_tools().values() if wanted.intersection(t.task_types)),
        key=lambda t: t.name,
    )


def invoke(name: str, args: Mapping[str, Any] | None, ctx: ToolContext) -> ToolResult:
    """Run tool `name` with `args`; never raises for a bad call or a tool failure (only
    ApprovalRequired, when the tool needs a yes nobody can give, stops the run)."""
    preview = ctx.config.event_preview_chars
    shown = json.dumps(args, ensure_ascii=False, default=str)
    ctx.bus.emit("tool.call", tool=name, origin=origin(name), args=_cut(shown, preview))
    start = time.perf_counter()
    ok, output, value = _run(name, args, ctx)
    output = _cut(output, ctx.config.max_result_chars)
    duration = round(time.perf_counter() - start, 3)
    ctx.bus.emit("tool.result", tool=name, ok=ok, output=_cut(output, preview), duration_s=duration)
    return ToolResult(name, ok, output, value if ok else None, duration)


def origin(name: str) -> str:
    """Where tool `name` comes from, as tool.call events say it: "mcp" (a tool of the MCP
    task type, reaching a configured MCP server), "builtin" (Codur's own), or "unknown"
    (no such tool: the call fails)."""
    spec = all_tools().get(name)
    if spec is None:
        return "unknown"
    return "mcp" if TaskType.MCP in spec.task_types else "builtin"


def _run(name: str, args: Mapping[str, Any] | None, ctx: ToolContext) -> tuple[bool, str, Any]:
    tools = all_tools()
    spec = tools.get(name)
    if spec is None:
        close = difflib.get_close_matches(str(name), tools, n=1)
        hint = f" Did you mean {close[0]}?" if close else ""
        return False, f"Unknown tool {name!r}.{hint} Valid tools: {', '.join(sorted(tools))}", None
    kwargs, problem = _validate(spec, args)
    if problem:
        return False, f"Bad arguments for {name}: {problem}. Expected: {spec.usage}", None
    lock = ctx.write_lock if spec.writes else contextlib.nullcontext()
    try:
        with lock:
            try:
                value = spec.func(ctx, **kwargs)
            finally:
                if spec.writes:  # what it changed is as Codur left it
                    ctx.changed()
    except ApprovalRequired:
        raise  # nobody can approve it: the run stops (not an observation for the model)
    except CodurError as exc:
        return False, f"{name} failed: {exc}", None
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        return False, f"{name} failed: {exc.strerror or exc}{where}", None
    return True, _text(value) or "(empty)", value


def _validate(spec: ToolSpec, args: Mapping[str, Any] | None) -> tuple[dict[str, Any], str]:
    from pydantic import ValidationError

    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        return {}, f"arguments must be an object, not {type(args).__name__}"
    names = {p.name for p in spec.params}
    unknown = sorted(str(k) for k in args if k not in names)
    if unknown:
        return {}, f"unexpected argument(s) {', '.join(unknown)}"
    try:
        model = spec.schema.model_validate(dict(args))
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(x) for x in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
        ]
        return {}, "; ".join(problems)
    return {n: getattr(model, n) for n in names}, ""


def _text(value: Any) -> str:
    """How a tool's return value reads for the model."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return "\n".join(value) if value else "(none)"
    if isinstance(value, dict | list | tuple) or value is None:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    if dataclasses.is_dataclass(value) and type(value).__str__ is object.__str__:
        return json.dumps(dataclasses.asdict(value), indent=2, default=str)
    return str(value)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[... cut: {len(text) - limit} more characters]"
