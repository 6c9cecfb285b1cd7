"""Running a task: the edit -> verify -> retry loop (the graph issue turns this into nodes).

Each iteration asks the coding agent for edits, writes them (after a restore point), and
runs the folder's verification. It ends verified, stuck (the same failure twice),
unverified (iterations used up, or nothing to verify against), or at a limit.
"""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field
from typing import Literal

from codur.agents.coder import CoderAgent
from codur.errors import ExitCode, LimitReached, UsageError
from codur.session import Session
from codur.task import file_refs
from codur.verify.check import failure_message, verify
from codur.verify.target import find_target

Status = Literal["verified", "unverified", "stuck", "limit", "done"]
EXIT_CODES: dict[Status, ExitCode] = {
    "verified": ExitCode.OK,
    "done": ExitCode.OK,
    "unverified": ExitCode.NOT_VERIFIED,
    "stuck": ExitCode.NOT_VERIFIED,
    "limit": ExitCode.NOT_VERIFIED,
}


@dataclass
class RunResult:
    status: Status
    message: str
    iterations: int = 0
    files_changed: list[str] = field(default_factory=list)
    diff: str = ""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_CODES[self.status]


def run_task(session: Session, task: str) -> RunResult:
    start = time.perf_counter()
    ws, cfg = session.ws, session.config
    refs = file_refs(task)
    for ref in refs:
        if not ws.resolve(ref).is_file():
            raise UsageError(f"@{ref}: no such file in {ws.root}")
    target = find_target(ws, refs, cfg.verify)
    paths = refs or ([target.entry] if target and target.entry.endswith(".py") else [])
    originals = {p: ws.read_text(p) for p in paths}
    files = dict(originals)
    agent = CoderAgent(session)
    if target is not None:  # show the model the failure before it changes anything
        with session.bus.span("node", node="verify", iteration=0) as out:
            verdict = verify(ws, target, cfg.verify, session.bus)
            out["passed"] = verdict.passed
        if not verdict.passed:
            agent.evidence = failure_message(ws, verdict, include_source=False)
    seen: set[str] = set()
    status: Status = "unverified"
    message = f"no verification passed in {cfg.runtime.max_iterations} iterations"
    iteration = 0
    try:
        while iteration < cfg.runtime.max_iterations:
            iteration += 1
            with session.bus.span("node", node="coder", iteration=iteration):
                proposal = agent.propose(task, files)
            reply = proposal.reply
            if proposal.error:
                agent.feedback(reply, f"Your edit was rejected: {proposal.error}")
                session.bus.emit("edit.rejected", iteration=iteration, error=proposal.error)
                continue
            edits = [e for e in proposal.edits if files.get(e.path) != e.content]
            if not edits:  # nothing was tried: costs an iteration, then a fresh sample
                session.bus.emit("edit.rejected", iteration=iteration, error="no change")
                continue
            for edit in edits:
                session.restore.save(edit.path)
                ws.write_text(edit.path, edit.content)
                files[edit.path] = edit.content
                session.bus.emit("file.write", path=edit.path, lines=edit.content.count("\n") + 1)
            if target is None:
                status, message = "done", "edited; nothing in the folder to verify against"
                break
            with session.bus.span("node", node="verify", iteration=iteration) as out:
                verdict = verify(ws, target, cfg.verify, session.bus)
                out["passed"] = verdict.passed
            if verdict.passed:
                status, message = "verified", target.describe()
                break
            if verdict.fingerprint in seen:
                status, message = "stuck", "stuck: the same failure came back twice"
                break
            seen.add(verdict.fingerprint)
            agent.feedback(reply, failure_message(ws, verdict, include_source=False))
    except LimitReached as exc:
        status, message = "limit", str(exc)
    changed = [p for p in files if files[p] != originals.get(p)]
    diff = "".join(
        "".join(
            difflib.unified_diff(
                originals.get(p, "").splitlines(keepends=True),
                files[p].splitlines(keepends=True),
                f"a/{p}",
                f"b/{p}",
            )
        )
        for p in changed
    )
    return RunResult(
        status,
        message,
        iteration,
        changed,
        diff,
        session.usage.calls,
        session.usage.prompt_tokens,
        session.usage.completion_tokens,
        round(time.perf_counter() - start, 2),
    )
