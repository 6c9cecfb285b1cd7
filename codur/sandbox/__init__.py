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

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codur.litter import temp_prefix
from codur.sandbox.confine import Confiner, Prepared, detect
from codur.sandbox.env import TAG, scrubbed
from codur.sandbox.private import hide_codur, inspection_steps, libc
from codur.sandbox.reaper import REAPER

if TYPE_CHECKING:
    import threading

    from codur.config.schema import CodurConfig
    from codur.sandbox.repository import Repository
    from codur.sandbox.started import Start


@dataclass(frozen=True)
class Launch:
    """One program, ready to start: argv, how it starts (its environment among the Popen
    arguments), its tag. Start it with `subprocess.Popen(launch.argv, **launch.popen,
    ...)`, then call `launch.started()` (it raises what kept the program from starting)."""

    start: Start
    tag: str
    temp: Path

    @property
    def argv(self) -> list[str]:
        return self.start.argv

    @property
    def popen(self) -> dict[str, Any]:
        return self.start.popen

    def started(self) -> None:
        self.start.started()


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
            from codur.sandbox.child import Steps  # here: `codur --help` needs no ctypes
            from codur.sandbox.started import Start

            try:
                hide_codur()
                drop = self.scrub and not prepared.drops_inspecting
                steps = Steps(
                    parent=os.getpid() if self.die_with_parent and _linux() else None,
                    memory=memory_limit,
                    landlock=prepared.landlock,
                    landlock_flags=prepared.landlock_flags,
                    no_new_privs=prepared.no_new_privs,
                    read_only=prepared.read_only,
                    **(inspection_steps() if drop else {}),
                )
                tag = REAPER.new_tag()
                start = Start.of(prepared.argv, steps, libc, self.environment(env, temp, tag))
                try:
                    yield Launch(start, tag, temp)
                finally:
                    start.close()
            finally:
                for release in prepared.release:
                    release()
        finally:
            shutil.rmtree(temp)


def _linux() -> bool:
    return sys.platform == "linux"
