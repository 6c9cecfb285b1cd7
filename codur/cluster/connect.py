"""Reaching Ray: the package itself (the `codur[ray]` extra; without it, one line naming
what to install) and a cluster, either a local instance started for the run or one at
an address, shut down (or left) when the run ends."""

from __future__ import annotations

import logging
import re
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

from codur.errors import MissingExtra, UsageError

INSTALL = "pip install 'codur[ray]'"
ADDRESS = re.compile(r"^(auto|local|ray://\S+|\S+:\d+)$")
"""A Ray address as `--ray` takes it: auto (the cluster running on this machine), local (a
new local instance), ray://host:port (Ray Client) or host:port (the head's GCS)."""


def require_ray(feature: str = "--ray") -> ModuleType:
    """The `ray` module, or MissingExtra (exit code 7) naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise MissingExtra(f"{feature} needs the ray package: {INSTALL}") from None
    return ray


CONNECT_TIMEOUT_S = 10.0
"""How long a cluster's head may take to accept a connection before `--ray ADDRESS` gives
up on it (ray.init itself retries a head that is not there for minutes, in silence)."""


def require_answer(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """UsageError, in one line, when nothing accepts a connection at `address`'s host and
    port (`host:port` or `ray://host:port`; `auto` and `local` are Ray's to find)."""
    found = re.match(r"^(?:ray://)?(\[[^\]]+\]|[^:/]+):(\d+)$", address)
    if found is None:
        return
    host, port = found.group(1).strip("[]"), int(found.group(2))
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as exc:
        why = "timed out" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
        raise UsageError(
            f"--ray {address}: nothing answers at {host}:{port} ({why}): is a Ray head "
            "running there (ray start --head)?"
        ) from None


@dataclass(frozen=True)
class ClusterInfo:
    address: str
    """The address given, or `local instance` for one started for this run."""
    nodes: int
    """Nodes alive when the run started."""
    cpus: float
    """CPUs of the cluster when the run started (an autoscaler may add more)."""

    def describe(self) -> str:
        return f"{self.address}, {self.nodes} node(s), {self.cpus:g} CPUs"


@contextmanager
def connected(address: str | None, num_cpus: int | None = None) -> Iterator[ClusterInfo]:
    """Ray for the block: `address` None starts a local instance (`num_cpus` CPUs, unset:
    all of this machine's), else connects to that cluster (`auto`, `host:port`,
    `ray://host:port`). Codur's own SIGTERM handling is kept (ray.init installs its own),
    so a SIGTERM cancels the runs as Ctrl-C does."""
    ray = require_ray()
    if address:
        require_answer(address)
    main = threading.current_thread() is threading.main_thread()
    term = signal.getsignal(signal.SIGTERM) if main else None
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address:
            ray.init(address=address, **quiet)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "(a local instance)"
        raise UsageError(f"--ray {where}: cannot start or reach Ray: {exc}") from None
    finally:
        if main and term is not None:
            signal.signal(signal.SIGTERM, term)
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        cpus = float(ray.cluster_resources().get("CPU", 0))
        yield ClusterInfo(address or "local instance", len(nodes), cpus)
    finally:
        ray.shutdown()
