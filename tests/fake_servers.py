"""Small real HTTP servers speaking the OpenAI, Anthropic and Ollama chat wire formats,
for tests.

Each server runs in a background thread on 127.0.0.1 (a free port) and answers requests
from a queue of scripted behaviours: `Reply` (text and/or tool calls, optionally cut by
the token limit or with cached prompt tokens; streamed when the request asks for it,
paced or cut mid-way: tests/fake_streams.py), `Fail` (an HTTP error status) or `Delay`
(wait longer than the client's timeout, then reply) or `Hold` (wait until the test lets
go: the client is waiting on the model meanwhile). When the
queue is empty it answers with `default` (a 500 unless a test sets something else).
Every request is recorded (`requests`: path, headers, parsed JSON body) so tests can
assert on what actually went over the wire.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fake_streams import Streamed, anthropic_events, ollama_lines, openai_events


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    prompt_tokens: int = 11
    completion_tokens: int = 7
    finish_reason: str | None = None
    """None: "tool_calls" or "stop" as the reply has calls or not; "length": cut."""
    cached_tokens: int = 0
    """OpenAI: prompt tokens served from the provider's prompt cache."""
    pace_s: float = 0.0
    """Streamed: seconds between two chunks (a model generating at that pace)."""
    cut_after: int | None = None
    """Streamed: the connection closes after this many chunks (a server dying mid-reply)."""

    def reason(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


@dataclass
class Fail:
    status: int
    message: str = "scripted failure"


@dataclass
class Delay:
    seconds: float
    then: Reply | Fail | None = None


@dataclass
class Hold:
    """Answer `then` once the test sets `release`; `arrived` is set when the request is in
    (the client is then waiting on the model, and on nothing else)."""

    then: Reply
    arrived: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)


@dataclass
class Raw:
    """Exactly this answer, whatever the protocol says (HTML, cut JSON, `{}`)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


@dataclass
class Trickle:
    """A 200 answer whose body comes one byte every `every_s` seconds (the default body
    is never done within any sensible deadline, though each single read is quick). It
    records what the server saw: when it started and ended, and how much it sent."""

    every_s: float
    body: bytes = b'{"id": "x", "choices": []}' * 50
    started: threading.Event = field(default_factory=threading.Event)
    """Set once the headers are sent (the client is waiting for the body)."""
    ended: threading.Event = field(default_factory=threading.Event)
    """Set when the answer ends: whole, or `sent` short when the client hung up."""
    sent: int = 0
    """Bytes of `body` sent."""


@dataclass
class Hangup:
    """Close the connection without answering (a server that died mid-request)."""


Behaviour = Reply | Fail | Delay | Hold | Raw | Trickle | Hangup


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeServer:
    """Base: threading, the behaviour queue and request recording; subclasses speak a format."""

    def __init__(self) -> None:
        self.behaviours: deque[Behaviour] = deque()
        self.default: Behaviour = Fail(500, "fake server: no scripted behaviour left")
        self.requests: list[Recorded] = []
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *behaviours: Behaviour) -> FakeServer:
        self.behaviours.extend(behaviours)
        return self

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes handlers sleeping in a Delay
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next(self) -> Behaviour:
        return self.behaviours.popleft() if self.behaviours else self.default

    def peek(self) -> Behaviour:
        return self.behaviours[0] if self.behaviours else self.default

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw) if raw else None
                server.requests.append(
                    Recorded(
                        "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body
                    )
                )
                behaviour = server.peek()
                if isinstance(behaviour, Hangup | Trickle):
                    server.behaviours.popleft() if server.behaviours else None
                    if isinstance(behaviour, Trickle):
                        self._trickle(behaviour)
                    self.close_connection = True
                    return
                try:
                    status, content_type, payload = server.respond(self.path, body)
                except ClientGone:
                    return
                if isinstance(payload, Streamed):
                    self._stream(content_type, payload)
                    return
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client timed out and hung up: nothing left to tell it

            def do_GET(self) -> None:
                server.requests.append(
                    Recorded(
                        "GET", self.path, {k.lower(): v for k, v in self.headers.items()}, None
                    )
                )
                status, content_type, payload = server.get(self.path)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, content_type: str, streamed: Streamed) -> None:
                """A chunked body (as real servers stream), piece by piece."""
                self.protocol_version = "HTTP/1.1"  # chunked transfer encoding
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for n, piece in enumerate(streamed.pieces):
                        if n == streamed.cut_after:
                            return  # hang up: the body never ends
                        if n and server._stopping.wait(streamed.pace_s):
                            return
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client hung up (a cancel, its deadline)

            def _trickle(self, trickle: Trickle) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(trickle.body)))
                    self.end_headers()
                    trickle.started.set()
                    for i in range(len(trickle.body)):
                        if server._stopping.wait(trickle.every_s):
                            return
                        self.wfile.write(trickle.body[i : i + 1])
                        self.wfile.flush()
                        trickle.sent += 1
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up: what the test wants
                finally:
                    trickle.ended.set()

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: pytest output stays readable."""

        return Handler

    def respond(self, path: str, body: Any) -> tuple[int, str, bytes | Streamed]:
        behaviour = self._next()
        if isinstance(behaviour, Delay):
            if self._stopping.wait(behaviour.seconds):
                raise ClientGone
            behaviour = behaviour.then or self._next()
        if isinstance(behaviour, Hold):
            behaviour.arrived.set()
            while not behaviour.release.wait(0.05):
                if self._stopping.is_set():
                    raise ClientGone
            behaviour = behaviour.then
        if isinstance(behaviour, Fail):
            return self.error(behaviour.status, behaviour.message)
        if isinstance(behaviour, Raw):
            return behaviour.status, behaviour.content_type, behaviour.body
        return self.reply(path, body, behaviour)

    def get(self, path: str) -> tuple[int, str, bytes]:
        """A GET request (not scripted: the chat endpoints are POSTs)."""
        return self.error(404, f"fake server: no route GET {path}")

    def error(self, status: int, message: str) -> tuple[int, str, bytes]:
        raise NotImplementedError

    def reply(self, path: str, body: Any, reply: Reply) -> tuple[int, str, bytes | Streamed]:
        raise NotImplementedError


class ClientGone(Exception):
    """The server is stopping while a handler waits: drop the connection."""


def _json(status: int, data: Any) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps(data).encode()


class OpenAIServer(FakeServer):
    """POST {url}/v1/chat/completions: one JSON object, or server-sent events when the
    request says `stream` (usage last when `stream_options.include_usage` asks for it).
    `strict` mimics llama.cpp's server: a message whose "content" is null is rejected
    with HTTP 400."""

    def __init__(self, strict: bool = False) -> None:
        super().__init__()
        self.strict = strict

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def error(self, status: int, message: str) -> tuple[int, str, bytes]:
        kind = "server_error" if status >= 500 else "invalid_request_error"
        return _json(status, {"error": {"message": message, "type": kind, "code": status}})

    def respond(self, path: str, body: Any) -> tuple[int, str, bytes | Streamed]:
        if not path.endswith("/chat/completions"):
            return self.error(404, f"fake server: no route {path}")
        if self.strict:
            for i, message in enumerate(body.get("messages", [])):
                if "content" not in message or message["content"] is None:
                    return self.error(400, f"messages[{i}]: 'content' must be a string or array")
        return super().respond(path, body)

    def reply(self, path: str, body: Any, reply: Reply) -> tuple[int, str, bytes | Streamed]:
        calls = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for n, (name, args) in enumerate(reply.tool_calls)
        ]
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        }
        if body.get("stream"):
            events = openai_events(body, reply.text, calls, reply.reason(), usage)
            return 200, "text/event-stream", Streamed(events, reply.pace_s, reply.cut_after)
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if calls:
            message["tool_calls"] = calls
        return _json(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": reply.reason(),
                    }
                ],
                "usage": usage,
            },
        )


class OllamaServer(FakeServer):
    """POST {url}/api/chat. Honours the request's `stream` flag: NDJSON chunks (the text
    word by word, then a final `done` line with token counts) or one JSON object.
    GET {url}/api/tags lists `models` (the models the server has pulled)."""

    def __init__(self) -> None:
        super().__init__()
        self.models: list[str] = ["qwen2.5-coder:1.5b"]

    def get(self, path: str) -> tuple[int, str, bytes]:
        if path != "/api/tags":
            return self.error(404, f"fake server: no route GET {path}")
        listed = [{"name": m, "model": m, "size": 986_000_000} for m in self.models]
        return _json(200, {"models": listed})

    def error(self, status: int, message: str) -> tuple[int, str, bytes]:
        return _json(status, {"error": message})

    def respond(self, path: str, body: Any) -> tuple[int, str, bytes | Streamed]:
        if path != "/api/chat":
            return self.error(404, f"fake server: no route {path}")
        return super().respond(path, body)

    def reply(self, path: str, body: Any, reply: Reply) -> tuple[int, str, bytes | Streamed]:
        model = body.get("model", "")
        calls = [{"function": {"name": n, "arguments": a}} for n, a in reply.tool_calls]
        final = {
            "model": model,
            "created_at": "2025-01-01T00:00:00Z",
            "done": True,
            "done_reason": "stop" if reply.reason() == "tool_calls" else reply.reason(),
            "prompt_eval_count": reply.prompt_tokens,
            "eval_count": reply.completion_tokens,
        }
        if body.get("stream", True) is False:
            message: dict[str, Any] = {"role": "assistant", "content": reply.text}
            if calls:
                message["tool_calls"] = calls
            return _json(200, {**final, "message": message})
        lines = ollama_lines(model, reply.text, calls, final)
        return 200, "application/x-ndjson", Streamed(lines, reply.pace_s, reply.cut_after)


class AnthropicServer(FakeServer):
    """POST {url}/v1/messages (Anthropic's Messages API): one message object, or its
    server-sent events when the request says `stream`. Like the real API it insists on
    an `x-api-key` header, `max_tokens`, and turns that alternate user / assistant with
    every tool_result answering the tool_use of the turn before it (HTTP 400 otherwise).
    The key may come as `x-api-key` or, as the SDK sends it from 2.x on, a bearer token."""

    STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}

    def error(self, status: int, message: str) -> tuple[int, str, bytes]:
        kind = "api_error" if status >= 500 else "invalid_request_error"
        return _json(status, {"type": "error", "error": {"type": kind, "message": message}})

    def respond(self, path: str, body: Any) -> tuple[int, str, bytes | Streamed]:
        if path != "/v1/messages":
            return self.error(404, f"fake server: no route {path}")
        problem = self._invalid(body)
        if problem:
            return self.error(400, problem)
        return super().respond(path, body)

    def _invalid(self, body: Any) -> str | None:
        if not api_key(self.requests[-1].headers):
            return "x-api-key header is required"
        if not isinstance(body.get("max_tokens"), int):
            return "max_tokens: field required"
        messages = body.get("messages") or []
        roles = [m["role"] for m in messages]
        repeated = any(a == b for a, b in zip(roles, roles[1:], strict=False))
        if not roles or roles[0] != "user" or repeated:
            return f"messages: roles must alternate, starting with user (got {roles})"
        asked: set[str] = set()
        for message in messages:
            content = message["content"] if isinstance(message["content"], list) else []
            if message["role"] == "assistant":
                asked = {c["id"] for c in content if c.get("type") == "tool_use"}
                continue
            for block in content:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in asked:
                    return f"tool_result {block.get('tool_use_id')}: no tool_use before it"
            asked = set()
        return None

    def reply(self, path: str, body: Any, reply: Reply) -> tuple[int, str, bytes | Streamed]:
        blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        blocks += [
            {"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}
            for n, (name, args) in enumerate(reply.tool_calls)
        ]
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": blocks,
            "stop_reason": self.STOP[reply.reason()],
            "stop_sequence": None,
            "usage": {  # input_tokens: those not read from the prompt cache
                "input_tokens": reply.prompt_tokens - reply.cached_tokens,
                "output_tokens": reply.completion_tokens,
                "cache_read_input_tokens": reply.cached_tokens,
            },
        }
        if body.get("stream"):
            events = anthropic_events(message, blocks)
            return 200, "text/event-stream", Streamed(events, reply.pace_s, reply.cut_after)
        return _json(200, message)


def api_key(headers: dict[str, str]) -> str | None:
    """The key a Messages API request carries: `x-api-key`, or an `authorization` bearer."""
    bearer = headers.get("authorization", "")
    return headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)


def unused_port() -> int:
    """A port nothing listens on (bound then released), for connection-refused tests."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
