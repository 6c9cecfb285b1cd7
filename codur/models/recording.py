"""Recordings of a run's model calls (`--record FILE`), read back by `--replay FILE`
(`codur.models.replay`).

A recording is JSON lines: a header, then in call order one `call` line per model request
(the request: messages, tools offered and sampling params; the response: content, tool
calls, usage, finish reason, metadata) and a `tokens` line per distinct prompt whose tokens
were counted (so a replay fits its prompts exactly as the recorded run did, with no
tokenizer loaded). Each request carries `key`, a hash of its messages, tools and params:
a replay answers request N with recorded call N only if the keys are equal.

Secrets (API keys in the environment, values of secret-named fields) are redacted before
anything is written; the key is hashed from the request as it was, so a replay can match
it without the file holding the secret. The file is rewritten atomically after each call;
an existing file that is not a recording is never overwritten (`check_target`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codur.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage, BaseMessage

    from codur.redaction import Redactor

FORMAT = 1
"""The recording format's version (in the header line)."""
HEADER_MAX = 4096
"""Bytes of a file's first line read to tell whether it is a recording."""


def render(message: BaseMessage) -> dict[str, Any]:
    """A message as the recording holds it (and as its key is hashed): role, content, and
    the tool calls or tool result it carries (ids left out: they are random per run)."""
    out: dict[str, Any] = {"role": message.type, "content": message.content}
    calls = getattr(message, "tool_calls", None)
    if calls:
        out["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in calls]
    if message.type == "tool":
        out["name"] = getattr(message, "name", None)
        out["status"] = getattr(message, "status", None)
    return out


def tool_names(tools: Sequence[Any]) -> list[str]:
    return [getattr(t, "name", None) or str(t) for t in tools]


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def request_key(
    messages: Sequence[BaseMessage], tools: Sequence[str], params: dict[str, Any]
) -> str:
    """Identifies a model request by its content: messages, tool names and params."""
    return _digest({"messages": [render(m) for m in messages], "tools": list(tools), **params})


def tokens_key(messages: Sequence[BaseMessage], tools: Sequence[str]) -> str:
    """Identifies a prompt whose tokens were counted."""
    return _digest({"messages": [render(m) for m in messages], "tools": list(tools)})


def response(reply: AIMessage) -> dict[str, Any]:
    """A reply as the recording holds it (everything `replay.to_message` needs)."""
    return {
        "content": reply.content,
        "tool_calls": [
            {"name": c["name"], "args": c["args"], "id": c.get("id")} for c in reply.tool_calls
        ],
        "finish_reason": (reply.response_metadata or {}).get("finish_reason"),
        "usage": dict(reply.usage_metadata or {}),
        "response_metadata": dict(reply.response_metadata or {}),
    }


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The recording's lines (ConfigError naming the file and line if it is no recording)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the recording: {exc.strerror or exc}") from None
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            item = json.loads(line)
        except ValueError:
            raise ConfigError(f"{path}:{number}: not a recording line (JSON expected)") from None
        except RecursionError:  # Codur writes no line that deep: it is not one of its own
            raise ConfigError(
                f"{path}:{number}: not a recording line (nested too deeply)"
            ) from None
        if not isinstance(item, dict) or item.get("kind") not in ("header", "call", "tokens"):
            raise ConfigError(f"{path}:{number}: not a recording line (no known `kind`)")
        lines.append(item)
    if not lines or lines[0]["kind"] != "header" or lines[0].get("format") != FORMAT:
        raise ConfigError(f"{path}: not a Codur recording (format {FORMAT} header expected)")
    for number, item in enumerate(lines, 1):
        if wrong := _malformed(item):
            raise ConfigError(f"{path}:{number}: not a recording line (a {item['kind']} {wrong})")
    return lines


_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "call": {"key": str, "request": dict, "response": dict},
    "tokens": {"key": str, "tokens": int},
}
"""What each kind of line holds, as Codur writes it."""


def _malformed(item: dict[str, Any]) -> str:
    """What a line lacks that a replay reads (empty: nothing)."""
    missing = [
        k for k, kind in _FIELDS.get(item["kind"], {}).items() if not isinstance(item.get(k), kind)
    ]
    if missing:
        return "line without " + ", ".join(f"`{k}`" for k in missing)
    if item["kind"] != "call":
        return ""
    calls = item["response"].get("tool_calls") or []
    fits = isinstance(calls, list) and all(
        isinstance(c, dict) and isinstance(c.get("name"), str) and isinstance(c.get("args"), dict)
        for c in calls
    )
    return "" if fits else "line whose tool calls lack a `name` or `args`"


def recorded_profile(path: Path) -> str | None:
    """The profile the recording's first call was made with (None: it holds no call)."""
    return next((line.get("profile") for line in read_lines(path) if line["kind"] == "call"), None)


def check_target(path: Path) -> None:
    """UsageError unless `path` may be written as a recording: its folder exists, and no
    file is there yet, or a Codur recording is (an earlier one, rewritten). Any other file
    is the user's, and undo cannot bring it back (snapshots leave the recording out)."""
    if not path.parent.is_dir():  # not made: a typo would leave folders anywhere
        raise UsageError(f"--record {path}: {path.parent} is not a folder")
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"--record {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode) or not _has_header(path):
        raise UsageError(
            f"--record {path}: the file exists and is not a Codur recording; it is not "
            "overwritten (name a new file)"
        )


def _has_header(path: Path) -> bool:
    """Whether the regular file `path` starts with a recording's header line."""
    try:
        with path.open("rb") as fh:
            first = fh.readline(HEADER_MAX)
        header = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(header, dict) and header.get("kind") == "header"


class Recorder:
    """Writes a run's model calls to `path` as they happen. `keep`: calls of an earlier
    part of the same run to keep from the file (a resumed run continues its recording
    after the calls its last checkpoint had made)."""

    def __init__(self, path: Path, redact: Redactor, keep: int = 0) -> None:
        check_target(path)
        self.path = path
        self.redact = redact
        self.lines: list[dict[str, Any]] = [{"kind": "header", "format": FORMAT}]
        self.counted: set[str] = set()
        if keep and path.is_file():
            old = read_lines(path)
            calls = [line for line in old if line["kind"] == "call"][:keep]
            counts = [line for line in old if line["kind"] == "tokens"]
            self.lines += calls + counts
            self.counted = {line["key"] for line in counts}

    @property
    def calls(self) -> int:
        return sum(1 for line in self.lines if line["kind"] == "call")

    def call(
        self,
        profile: str,
        messages: Sequence[BaseMessage],
        tools: Sequence[str],
        params: dict[str, Any],
        reply: AIMessage,
    ) -> None:
        """Record one request and its reply."""
        request = {"messages": [render(m) for m in messages], "tools": list(tools), **params}
        self.lines.append(
            {
                "kind": "call",
                "n": self.calls + 1,
                "profile": profile,
                "key": request_key(messages, tools, params),
                "request": self.redact(request),
                "response": self.redact(response(reply)),
            }
        )
        self._write()

    def tokens(self, messages: Sequence[BaseMessage], tools: Sequence[str], count: int) -> None:
        """Record a prompt's token count (once per distinct prompt)."""
        key = tokens_key(messages, tools)
        if key in self.counted:
            return
        self.counted.add(key)
        self.lines.append({"kind": "tokens", "key": key, "tokens": count})
        self._write()

    def _write(self) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                for line in self.lines:
                    fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            os.replace(tmp, self.path)
        finally:
            Path(tmp).unlink(missing_ok=True)
