"""One run's log records as a tree: the run, its graph nodes in order (subgraphs inside
the node that ran them), and under each node its model calls, tool calls, checks and
other events.

Nesting comes from node.start / node.end (codur.trace.traced and the agent loop's
spans): an event belongs to the innermost node open when it was logged. The execute
step's nodes (prepare, agent <-> tools, finish) have no span of their own in the run
graph, so they are grouped under an `execute` item. Values are kept as logged (the JSON
output shows them as they are); only names and keys are read, always leniently, so a
record of an older or newer Codur, or a damaged one, never stops the tree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codur.traces.item import Item, listed, number, text, walk
from codur.traces.logfile import Record, RunLog

EXECUTE_STEP = ("prepare", "agent", "tools", "finish")
"""The execute subgraph's nodes (codur.graph.build.build_execute); `prepare` opens it."""
MCP_TOOLS = frozenset({"call_mcp_tool", "list_mcp_tools", "read_mcp_resource"})
"""The MCP tool family's tools, for logs written before tool.call carried `origin`."""
_ENVELOPE = ("ts", "run", "event")


def build(run: RunLog, notes: list[str] | None = None) -> Item:
    """The tree of `run`; `notes`: what reading the log skipped."""
    builder = _Builder(run.run_id)
    for record in run.records:
        builder.add(record)
    return builder.finish(notes or [])


class _Builder:
    def __init__(self, run_id: str) -> None:
        self.root = Item("run", run_id)
        self.stack: list[Item] = [self.root]
        self.models: dict[tuple[str, str], Item] = {}  # calls without a reply yet
        self.tools: list[Item] = []  # tool calls without a result yet
        self.spans: list[Item] = []
        self.started = self.ended = False
        self.handlers: dict[str, Callable[[str, Record], None]] = {
            "run.start": self._start,
            "ask.start": self._start,
            "run.end": self._end,
            "ask.end": self._end,
            "node.start": self._node_start,
            "node.end": self._node_end,
            "node.error": self._node_error,
            "model.request": self._model_request,
            "model.response": self._model_response,
            "model.retry": self._model_retry,
            "tool.call": self._tool_call,
            "tool.result": self._tool_result,
            "tool.error": self._tool_error,
            "verify.run": lambda kind, r: self._leaf("check", kind, r),
            "verify.result": lambda kind, r: self._leaf("verification", kind, r),
            "verifier.verdict": lambda kind, r: self._leaf("verifier", kind, r),
            "todo.updated": lambda kind, r: self._leaf("todo", kind, r),
            "warning": lambda kind, r: self._leaf("warning", kind, r),
        }

    @property
    def top(self) -> Item:
        return self.stack[-1]

    def add(self, record: Record) -> None:
        kind = text(record.get("event")) or "?"
        handler = self.handlers.get(kind)
        if handler is not None:
            handler(kind, record)
        elif kind.endswith(".start"):
            self.spans.append(self._leaf("span", kind.removesuffix(".start"), record))
        elif kind.endswith(".end") and (span := self._pending_span(kind.removesuffix(".end"))):
            self._close(span, record)
        else:
            self._leaf("event", kind, record)

    def finish(self, notes: list[str]) -> Item:
        self._close_open(upto=1)
        data = self.root.data
        if not self.ended:
            data["status"] = "unfinished"
            notes = [*notes, "no run.end in the log: the run was killed, or is still running"]
        models = list(walk(self.root, "model"))
        if isinstance(data.get("models"), dict):  # the model names of profiles it called
            data["models"] = {k: v for k, v in data["models"].items() if _called(k, models)}
        data.setdefault("model_calls", len(models))
        data.setdefault(
            "prompt_tokens", sum(number(m.data.get("prompt_tokens")) or 0 for m in models)
        )
        data.setdefault(
            "completion_tokens", sum(number(m.data.get("completion_tokens")) or 0 for m in models)
        )
        if notes:
            data["log_notes"] = notes
        return self.root

    # -- the run ------------------------------------------------------------------------
    def _start(self, kind: str, record: Record) -> None:
        fields = _fields(record)
        fields.pop("config", None)  # the whole config: in the log, not in the tree
        fields.pop("config_layers", None)
        if self.started:  # a resumed run: its first process stopped where the tree is
            self._close_open(upto=1)
            resumed = self._leaf("resumed", kind, record)
            resumed.data.pop("config", None)
            resumed.data.pop("config_layers", None)
            return
        self.started = True
        self.root.data.update({"command": kind.split(".")[0], **fields})
        self.root.start = number(record.get("ts"))
        config = record.get("config")
        llm = config.get("llm") if isinstance(config, dict) else None
        profiles = llm.get("profiles") if isinstance(llm, dict) else None
        if isinstance(profiles, dict):
            self.root.data["models"] = {
                str(name): text(p.get("model"))
                for name, p in profiles.items()
                if isinstance(p, dict) and p.get("model")
            }

    def _end(self, kind: str, record: Record) -> None:
        self.ended = True
        self._close_open(upto=1)
        self.root.data.update(_fields(record))
        self.root.end = number(record.get("ts"))

    # -- nodes --------------------------------------------------------------------------
    def _node_start(self, kind: str, record: Record) -> None:
        name = text(record.get("node")) or "?"
        top = self.top
        if top.kind == "group" and name not in EXECUTE_STEP[1:]:
            self._close(self.stack.pop(), None)  # the execute step ended
        if name == EXECUTE_STEP[0] and self.top.name != "execute":
            group = Item("group", "execute", {"loop": "agent <-> tools"})
            group.start = number(record.get("ts"))
            self.top.children.append(group)
            self.stack.append(group)
        node = Item("node", name, _fields(record, "node"))
        node.start = number(record.get("ts"))
        self.top.children.append(node)
        self.stack.append(node)

    def _node_end(self, kind: str, record: Record) -> None:
        name = text(record.get("node")) or "?"
        for depth in range(len(self.stack) - 1, 0, -1):
            item = self.stack[depth]
            if item.kind == "node" and item.name == name:
                self._close_open(upto=depth + 1)
                self._close(self.stack.pop(), record)
                return
        node = Item("node", name, {**_fields(record, "node"), "no_start": True})
        self.top.children.append(node)  # its start is not in the log

    def _node_error(self, kind: str, record: Record) -> None:
        name = text(record.get("node"))
        fields = _fields(record, "node")
        failed = next(
            (
                item
                for item in [self.top, *reversed(self.top.children)]
                if item.kind in ("node", "group") and item.name == name
            ),
            None,
        )
        if failed is None:
            self._leaf("event", kind, record)
            return
        failed.data["error"] = fields.pop("error", failed.data.get("error"))
        failed.data.update({f"error_{k}": v for k, v in fields.items()})

    # -- model and tool calls -----------------------------------------------------------
    def _model_request(self, kind: str, record: Record) -> None:
        profile, call = text(record.get("profile")), text(record.get("call"))
        self.models[(profile, call)] = self._leaf("model", profile, record)

    def _model_response(self, kind: str, record: Record) -> None:
        key = (text(record.get("profile")), text(record.get("call")))
        item = self.models.pop(key, None) or self._leaf("model", key[0], {})
        item.data.update(_fields(record))
        item.data["replied"] = True

    def _model_retry(self, kind: str, record: Record) -> None:
        profile = text(record.get("profile"))
        waiting = [m for (p, _), m in self.models.items() if p == profile]
        if not waiting:
            self._leaf("event", kind, record)
            return
        item = waiting[-1]
        item.data["retries"] = [*listed(item.data.get("retries")), _fields(record)]

    def _tool_call(self, kind: str, record: Record) -> None:
        item = self._leaf("tool", text(record.get("tool") or record.get("name")), record)
        if item.data.get("origin") not in ("mcp", "builtin", "unknown"):
            item.data["origin"] = "mcp" if item.name in MCP_TOOLS else "builtin"
        self.tools.append(item)

    def _tool_result(self, kind: str, record: Record) -> None:
        name = text(record.get("tool") or record.get("name"))
        item = next((t for t in self.tools if t.name == name), None)
        if item is None:
            item = self._leaf("tool", name, {})
            item.data["origin"] = "mcp" if name in MCP_TOOLS else "builtin"
        else:
            self.tools.remove(item)
        item.data.update(_fields(record))
        item.end = number(record.get("ts"))

    def _tool_error(self, kind: str, record: Record) -> None:
        name = text(record.get("tool"))
        done = [t for t in walk(self.top, "tool") if t.name == name]
        if not done:
            self._leaf("event", kind, record)
            return
        done[-1].data.update({"ok": False, "error": record.get("error")})

    # -- helpers ------------------------------------------------------------------------
    def _leaf(self, item_kind: str, name: str, record: Record) -> Item:
        item = Item(item_kind, name, _fields(record))
        item.start = number(record.get("ts"))
        self.top.children.append(item)
        return item

    def _pending_span(self, name: str) -> Item | None:
        for span in reversed(self.spans):
            if span.name == name:
                self.spans.remove(span)
                return span
        return None

    def _close(self, item: Item, record: Record | None) -> None:
        if record is not None:
            item.data.update(_fields(record, "node"))
            item.end = number(record.get("ts"))
        elif item.children:  # a group: from its first start to its last end
            last = item.children[-1]
            item.end = last.end or last.start
        if "duration_s" not in item.data and item.start is not None and item.end is not None:
            item.data["duration_s"] = round(item.end - item.start, 3)

    def _close_open(self, upto: int) -> None:
        """Close every open item above stack depth `upto` (a node without an end is
        marked unfinished)."""
        while len(self.stack) > upto:
            item = self.stack.pop()
            if item.kind == "node":
                item.data["unfinished"] = True
            self._close(item, None)


def _fields(record: Record, *drop: str) -> dict[str, Any]:
    return {str(k): v for k, v in record.items() if k not in _ENVELOPE and k not in drop}


def _called(profile: str, models: list[Item]) -> bool:
    return any(m.name == profile for m in models)
