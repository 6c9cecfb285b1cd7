"""How Codur runs programs (the user's program, repair and sample candidates, pytest,
tools, derived checks): a scrubbed environment, their own session and process group,
every descendant killed when they end, no way to read Codur's own environment or memory
(where the model's keys are), and, where the OS offers it, writes confined to their
folder and a private temporary folder. See `env`, `reaper`, `private` and `confine`.

`Sandbox()` is what code without a run's config gets: secrets removed by name, not
confined. `Sandbox.from_config` is a run's: also every profile's key variable removed,
`sandbox.env_allow` kept, and confined as `sandbox.confine` says.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from codur.litter import temp_prefix
from codur.sandbox.confine import Confiner, Prepared, detect
from codur.sandbox.env import TAG, scrubbed
from codur.sandbox.private import hide_codur, without_inspection
from codur.sandbox.reaper import REAPER

if TYPE_CHECKING:
    import threading

    from codur.config.schema import CodurConfig
    from codur.sandbox.repository import Repository

if sys.platform != "win32":
    import resource  # imported here: the child, between fork and exec, must import nothing
else:
    resource = None


@dataclass(frozen=True)
class Launch:
    """One program, ready to start: argv, environment, what runs before exec, its tag."""

    argv: list[str]
    env: dict[str, str]
    preexec: Callable[[], None] | None
    tag: str
    temp: Path


@dataclass(frozen=True)
class Sandbox:
    key_names: tuple[str, ...] = ()
    """Environment variables that hold model API keys (every profile's `api_key_env`)."""
    env_allow: tuple[str, ...] = ()
    """Names (globs) kept in the environment although they look like secrets."""
    confiner: Confiner | None = None
    """How writes are confined (`confine.Landlock`, `confine.Bubblewrap`); None: not."""
    unconfined: str = ""
    """Why programs are not confined (empty when they are)."""
    writable: tuple[Path, ...] = ()
    """Folders (or single files, written in place) confined programs may write besides
    their own folder and their temp folder; missing ones are left out."""
    read_only: tuple[Path, ...] = ()
    """Paths under those folders that confined programs may not write (an external
    agent's workspace `.git`); missing ones are left out."""
    scrub: bool = True
    """False only for Codur running Codur (the challenge runner): the key is needed, and
    it keeps the capabilities it confines its own programs with (`private`)."""
    die_with_parent: bool = True
    """Kill the program when the thread that started it dies (Linux: PR_SET_PDEATHSIG;
    elsewhere a no-op), even by SIGKILL, when nothing is left to reap it: a Codur killed
    with SIGKILL (or a challenge runner's Ray worker) leaves no checked program running.
    Safe by default: `run_process` waits for its program in the thread that started it.
    Its descendants outlive it only under Landlock (bubblewrap's PID namespace ends
    them too)."""
    repository: Repository | None = None
    """The git repository the workspace was in when the run's sandbox was decided, before
    anything of the run ran: the git tools use only it (`gitro.Repository`)."""
    cancel: threading.Event | None = None
    """Set: the run was cancelled (`Session.cancel`); a program running is killed with its
    descendants and no other starts (`codur.process.run_process` raises Cancelled)."""

    @classmethod
    def from_config(cls, config: CodurConfig) -> Sandbox:
        """The run's sandbox; ConfigError when `sandbox.confine` names a way that is not
        available here."""
        from codur.errors import ConfigError

        choice = config.sandbox.confine
        confiner, why = detect(choice, config.tools.run_timeout_s)
        if confiner is None and choice in ("landlock", "bubblewrap"):
            raise ConfigError(f"sandbox.confine is {choice}, which cannot be used here: {why}")
        return cls(
            key_names=tuple(p.api_key_env for p in config.llm.profiles.values() if p.api_key_env),
            env_allow=tuple(config.sandbox.env_allow),
            confiner=confiner,
            unconfined=why,
            writable=tuple(Path(p).expanduser().resolve() for p in config.sandbox.writable),
        )

    @property
    def method(self) -> str:
        return self.confiner.name if self.confiner is not None else "none"

    def environment(self, extra: Mapping[str, str], temp: Path, tag: str) -> dict[str, str]:
        base = dict(os.environ)
        if self.scrub:
            base, _ = scrubbed(base, self.key_names, self.env_allow)
        inherited = base.get(TAG, "")
        return {
            **base,
            **extra,
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "TMPDIR": str(temp),
            "TMP": str(temp),
            "TEMP": str(temp),
            TAG: f"{inherited} {tag}".strip(),
        }

    @contextmanager
    def launch(
        self,
        command: list[str],
        cwd: Path,
        env: Mapping[str, str],
        writable: Sequence[Path] = (),
        memory_limit: int | None = None,
    ) -> Iterator[Launch]:
        """Prepare `command`; its temporary folder is removed when the block ends (after
        the program and its descendants are gone: `REAPER.end` inside the block)."""
        temp = Path(tempfile.mkdtemp(prefix=temp_prefix("program")))
        try:
            prepared = Prepared(list(command))
            if self.confiner is not None:
                extra = [p for p in [*self.writable, *writable] if Path(p).exists()]
                folders = [Path(cwd).resolve(), temp, *extra]
                kept = [p for p in self.read_only if Path(p).exists()]
                prepared = self.confiner.prepare(list(command), Path(cwd), folders, kept)
            try:
                hide_codur()
                parent = _parent_death(self.die_with_parent)
                drop = self.scrub and not prepared.drops_inspecting
                preexec = _chain(
                    prepared.preexec, memory_limit, parent, without_inspection() if drop else None
                )
                tag = REAPER.new_tag()
                yield Launch(prepared.argv, self.environment(env, temp, tag), preexec, tag, temp)
            finally:
                for release in prepared.release:
                    release()
        finally:
            shutil.rmtree(temp)


PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """The C library's prctl (Linux only); looked up in the parent, never in a child."""
    if sys.platform != "linux":
        return None
    import ctypes  # here: `codur --help` needs none of it

    return ctypes.CDLL(None, use_errno=True).prctl


def _parent_death(wanted: bool) -> Callable[[], None] | None:
    """The child's half of `die_with_parent`: ask for SIGKILL when its parent dies, then
    make sure the parent did not die before that (the signal would never come)."""
    prctl = _prctl() if wanted else None
    if prctl is None:
        return None
    parent = os.getpid()

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(137)

    return arm


def _chain(
    confine: Callable[[], None] | None,
    memory_limit: int | None,
    parent_death: Callable[[], None] | None = None,
    private: Callable[[], None] | None = None,
):
    """What the child runs before exec: death with its parent, the memory cap,
    confinement (which may need capabilities), then the capabilities that could read
    Codur's memory dropped (`private.without_inspection`)."""
    if not memory_limit and confine is None and parent_death is None and private is None:
        return None

    def preexec() -> None:
        if parent_death is not None:
            parent_death()
        if memory_limit and resource is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        if confine is not None:
            confine()
        if private is not None:
            private()

    return preexec
