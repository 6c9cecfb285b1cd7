"""The clients of the configured MCP servers (the MCP tools are codur/tools/mcp.py).

Servers (stdio or streamable HTTP, under `mcp_servers` in config) start on first use and
stay connected for the run: `McpClients` keeps one official-SDK `Client` per server on
a private event loop thread, so the synchronous tools can call them with a timeout.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import logging
import tempfile
import threading
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from codur.config.schema import McpServerConfig
from codur.redaction import redact
from codur.tools.tool_error import ToolError

T = TypeVar("T")
CONNECTION_CLOSED = -32000
"""The JSON-RPC error code the SDK gives pending requests when the connection drops."""


@dataclass
class _Connection:
    stop: asyncio.Event
    client: Any = None  # mcp.Client, once connected
    task: asyncio.Task[None] | None = None
    stderr: Any = None
    failure: BaseException | None = None
    """Why the connection ended early (reported by the next call)."""
    sdk_lines: deque[str] = field(default_factory=lambda: deque(maxlen=SDK_LINES))
    """The SDK's log lines about this connection (`_SdkLog`), for its error messages."""


TIMEOUTS = (TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError)


class _SdkLog(logging.Handler):
    """The MCP SDK's own log (a server line that is no JSON-RPC message: "Failed to parse
    JSONRPC message from server", with a traceback): each record's first line, masked, kept
    on the connection whose task logged it (`_CONNECTION`), the last few, for the error
    messages of that server's calls. Python's last-resort handler had printed them whole
    on the terminal, secrets and all. A record from outside a connection's task is
    dropped: no server's call to tell it to."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        conn = _CONNECTION.get()
        if conn is not None:
            first = (record.getMessage().splitlines() or [""])[0]
            conn.sdk_lines.append(redact(first[:300]))


SDK_LINES = 5
"""The SDK's log lines a connection keeps for error messages."""
_CONNECTION: contextvars.ContextVar[_Connection | None] = contextvars.ContextVar(
    "codur_mcp_connection", default=None
)
"""The connection whose task runs (set in its task; the SDK's reader inherits it)."""
logging.getLogger("mcp").addHandler(_SdkLog())
logging.getLogger("mcp").propagate = False  # never Python's last resort: the terminal


class McpClients:
    """Connections to the configured MCP servers, opened lazily, closed by `close()`."""

    def __init__(self, servers: Mapping[str, McpServerConfig], timeout_s: float, root: Path):
        self.servers = dict(servers)
        self.timeout_s = timeout_s
        self.root = root
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._connections: dict[str, _Connection] = {}
        self._retired: list[_Connection] = []
        self._lock = threading.RLock()  # _wait may _retire while _connect holds it

    def names(self, server: str | None = None) -> list[str]:
        """`[server]` if it is configured, all configured names for None; else ToolError."""
        if not self.servers:
            raise ToolError("no MCP servers are configured (add them under mcp_servers)")
        if server is None:
            return sorted(self.servers)
        if server not in self.servers:
            raise ToolError(f"unknown MCP server {server!r}; configured: {', '.join(self.servers)}")
        return [server]

    def call(self, server: str, request: Callable[[Any], Awaitable[T]]) -> T:
        """Run `request(client)` against `server` (connecting first if needed)."""
        conn = self._connect(server)
        return self._wait(asyncio.wait_for(request(conn.client), self.timeout_s), server, conn)

    def _retire(self, server: str, conn: _Connection) -> None:
        """Forget a connection that closed under us; the next call starts the server again."""
        with self._lock:
            if self._connections.get(server) is conn:
                del self._connections[server]
            self._retired.append(conn)
            if self._loop is not None:
                self._loop.call_soon_threadsafe(conn.stop.set)

    def close(self) -> None:
        """Disconnect every server and stop the event loop thread."""
        with self._lock:
            loop, thread = self._loop, self._thread
            conns = [*self._connections.values(), *self._retired]
            self._loop, self._thread, self._connections, self._retired = None, None, {}, []
        if loop is None:
            return
        for conn in conns:
            loop.call_soon_threadsafe(conn.stop.set)
        tasks = [c.task for c in conns if c.task is not None]
        done = asyncio.run_coroutine_threadsafe(_gather(tasks), loop)
        try:
            done.result(timeout=2 * self.timeout_s)
        except TIMEOUTS:
            for task in tasks:  # a server that will not stop: cancel (its process is killed)
                loop.call_soon_threadsafe(task.cancel)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=self.timeout_s)
            if not thread.is_alive():
                loop.close()
        for conn in conns:
            if conn.stderr is not None:
                conn.stderr.close()

    # --- internals -------------------------------------------------------------------

    def _connect(self, server: str) -> _Connection:
        self.names(server)
        with self._lock:
            conn = self._connections.pop(server, None)
            if conn is not None and conn.task is not None and not conn.task.done():
                self._connections[server] = conn
                return conn
            if conn is not None:
                self._retired.append(conn)
                why = _describe(conn.failure) if conn.failure else "it stopped"
                raise ToolError(f"MCP server {server!r} disconnected ({why}){_tail(conn)};"
                                " the next call starts it again")  # fmt: skip
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="codur-mcp", daemon=True
                )
                self._thread.start()
            conn = _Connection(stop=asyncio.Event())
            # server stderr, for error messages; closed by close()
            conn.stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            try:
                self._wait(self._open(self.servers[server], conn), server, conn)
            except ToolError:
                self._retired.append(conn)  # its stderr file is closed by close()
                raise
            self._connections[server] = conn
            return conn

    def _wait(self, coro: Awaitable[T], server: str, conn: _Connection) -> T:
        assert self._loop is not None
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)  # type: ignore[arg-type]
        try:
            return future.result(timeout=2 * self.timeout_s)
        except TIMEOUTS:
            future.cancel()
            raise ToolError(
                f"MCP server {server!r} did not answer within {self.timeout_s:g} s"
            ) from None
        except Exception as exc:  # noqa: BLE001  whatever a server does wrong is a tool error
            problem = f"{_describe(exc)}{_tail(conn)}"
            if getattr(exc, "code", None) == CONNECTION_CLOSED:
                self._retire(server, conn)
                problem += "\n(the connection closed; the next call starts the server again)"
            raise ToolError(f"MCP server {server!r}: {problem}") from None

    async def _open(self, config: McpServerConfig, conn: _Connection) -> None:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        from codur.sandbox.private import hide_codur

        if config.url is not None:
            target: Any = config.url
        else:
            hide_codur()  # a server is a program: Codur's environment is not its to read
            params = StdioServerParameters(
                command=config.command or "",
                args=config.args,
                env=config.env or None,
                cwd=self.root / config.cwd if config.cwd else self.root,
            )
            target = stdio_client(params, errlog=conn.stderr)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def hold() -> None:
            _CONNECTION.set(conn)  # this task's context: the SDK's tasks inherit it
            try:
                async with Client(target, read_timeout_seconds=self.timeout_s) as client:
                    conn.client = client
                    ready.set_result(None)
                    await conn.stop.wait()
            except Exception as exc:  # noqa: BLE001  kept for the caller / the next call
                conn.failure = exc
                if not ready.done():
                    ready.set_exception(exc)

        conn.task = asyncio.ensure_future(hold())
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.timeout_s)
        except TIMEOUTS:
            conn.task.cancel()
            raise


async def _gather(tasks: list[asyncio.Task[None]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


def _describe(exc: BaseException) -> str:
    """The innermost message of an exception (anyio wraps failures in groups)."""
    while getattr(exc, "exceptions", None):
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _tail(conn: _Connection) -> str:
    """The end of the server's stderr and the SDK's lines about it, masked (they go to
    the model and the log); each SDK line is said once."""
    stderr = conn.stderr
    text = ""
    if stderr is not None and not stderr.closed:
        stderr.flush()
        stderr.seek(0)
        text = redact(stderr.read()[-800:].strip())
        stderr.seek(0, 2)
    said = "; ".join(list(conn.sdk_lines))
    conn.sdk_lines.clear()
    return (f"\nserver stderr: {text}" if text else "") + (f"\nMCP client: {said}" if said else "")
