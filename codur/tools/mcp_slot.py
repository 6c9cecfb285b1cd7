"""The MCP clients of one tool context: started on first use, restarted when the servers'
configuration changed, stopped with the context."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codur.config.schema import McpServerConfig
    from codur.tools.mcp_clients import McpClients


@dataclass
class McpSlot:
    """Holds a context's `McpClients` (None until the first MCP tool call)."""

    clients: McpClients | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def get(self, servers: Mapping[str, McpServerConfig], timeout_s: float, root: Path):
        """The clients for `servers`, started now if none are or the configuration changed."""
        with self.lock:
            wanted = (dict(servers), timeout_s)
            if (
                self.clients is not None
                and (self.clients.servers, self.clients.timeout_s) != wanted
            ):
                self.clients.close()  # the configuration changed under us
                self.clients = None
            if self.clients is None:
                from codur.tools.mcp_clients import McpClients

                self.clients = McpClients(servers, timeout_s, root)
            return self.clients

    def close(self) -> None:
        """Stop the MCP servers these clients started."""
        with self.lock:
            if self.clients is not None:
                self.clients.close()
                self.clients = None
