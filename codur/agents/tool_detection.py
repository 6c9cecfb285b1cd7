"""Reading tool calls out of reply text, for models without native tool calling.

Accepted forms: a JSON object (bare or in a fenced block) such as
`{"tool": "read_file", "args": {"path": "a.py"}}` (also `name` / `arguments` keys, or a
list of such objects), and the call syntax `read_file(path="a.py")` on a line of its own.
Only names of registered tools count, so ordinary prose and code are never mistaken for
calls.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from typing import Any

from codur.replyjson import json_values

_CALL_LINE = re.compile(r"^\s*`?(?P<name>[a-z_][a-z0-9_]*)\((?P<args>.*)\)`?\s*$", re.MULTILINE)


def _from_object(obj: Any, known: Collection[str]) -> list[dict[str, Any]]:
    if isinstance(obj, list):
        return [c for item in obj for c in _from_object(item, known)]
    if not isinstance(obj, dict):
        return []
    name = obj.get("tool") or obj.get("name") or obj.get("tool_name")
    args = obj.get("args", obj.get("arguments", obj.get("parameters", {})))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return []
    if isinstance(name, str) and name in known and isinstance(args, dict):
        return [{"name": name, "args": args}]
    return []


def _from_call_syntax(text: str, known: Collection[str]) -> list[dict[str, Any]]:
    calls = []
    for match in _CALL_LINE.finditer(text):
        if match.group("name") not in known:
            continue
        try:
            node = ast.parse(f"f({match.group('args')})", mode="eval").body
            assert isinstance(node, ast.Call)
            args = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
        except (SyntaxError, ValueError):
            continue
        calls.append({"name": match.group("name"), "args": args})
    return calls


def detect_tool_calls(text: str, known: Collection[str]) -> list[dict[str, Any]]:
    """Tool calls written in `text` (JSON or call syntax) naming tools in `known`."""
    for candidate in json_values(text):
        calls = _from_object(candidate, known)
        if calls:
            return calls
    return _from_call_syntax(text, known)
