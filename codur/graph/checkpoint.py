"""Checkpoints of the run graph, for `codur resume`: one SQLite file per workspace, in the
folder where the workspace's run records live (`codur.undo.records.History.folder`), one
LangGraph thread per run (thread id = the run id).

After every step the graph's state is saved synchronously (`durability="sync"`), so a
run killed at any point (Ctrl-C, SIGKILL, a crash, a model server gone) can continue
from its last completed step. The state holds only data: the session (config, workspace,
models, events) travels as the runtime context; what each step spent on the model is in
the state's `usage`, the files Codur changed in its `written`, the edit scope decided at
the start in its `scope` and what the run learned of it in `scope_learned`. Graphs run
inside a node (the execute step's agent loop, sampling's) keep no checkpoints: their
state holds a `Turn`, whose agent and bound tools are no data, so a resumed run starts
such a step again from its top. State values are serialised by LangGraph's
JsonPlusSerializer, which revives only the types listed in `STATE_TYPES` (and
LangChain's messages): a new type in the state must be added there, or its checkpoint
cannot be read back (tests check it)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from codur.errors import CodurError
from codur.session import Session
from codur.undo import state_root
from codur.undo.records import History, RunRecord

DB_NAME = "checkpoints.sqlite"
WAIT_S = 30.0
"""How long to wait for another process's hold on the file (runs.checkpoint_wait_s)."""

STATE_TYPES: tuple[tuple[str, str], ...] = (
    ("codur.graph.outcome", "Outcome"),
    ("codur.graph.state", "ToolRun"),
    ("codur.graph.state", "NodeFailure"),
    ("codur.graph.state", "StandingPreference"),
    ("codur.graph.state", "ModelTest"),
    ("codur.scope.learned", "ScopeLearned"),
    ("codur.models.usage", "Spent"),
    ("codur.scope.policy", "EditScope"),
    ("codur.scope.harness", "Harness"),
    ("codur.scope.test_uses", "TestUses"),
    ("codur.verify.result", "VerificationResult"),
    ("codur.verify.evidence", "Evidence"),
    ("codur.verify.evidence", "Location"),
    ("codur.verify.plan", "VerificationPlan"),
    ("codur.verify.plan", "OutputCheck"),
    ("codur.verify.plan", "TestCheck"),
    ("codur.verify.plan", "StaticCheck"),
    ("codur.verify.oracle", "OracleCheck"),
    ("codur.verify.derived", "DerivedCheck"),
    ("codur.tools.todo", "TodoItem"),
    ("codur.planning.verdict", "VerifierVerdict"),
)
"""The (module, class) of every non-builtin value the run graph's state may hold."""


def db_path(root: Path) -> Path:
    """The checkpoint file of the workspace at `root` (beside its run records)."""
    return History(state_root(), root).folder / DB_NAME


def serializer() -> JsonPlusSerializer:
    """The checkpoints' serde: revives Codur's state types and nothing else unknown."""
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


def _nested(config: Any) -> bool:
    """Whether `config` is a graph's run inside a node (a non-empty checkpoint_ns)."""
    return bool((config or {}).get("configurable", {}).get("checkpoint_ns"))


class RunSaver(SqliteSaver):
    """SQLite checkpoints of the run graph's own steps; those of graphs run inside one of
    its nodes are neither saved nor found (see the module docstring)."""

    def get_tuple(self, config: Any) -> Any:
        return None if _nested(config) else super().get_tuple(config)

    def list(self, config: Any, **kwargs: Any) -> Iterator[Any]:
        return iter(()) if _nested(config) else super().list(config, **kwargs)

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        if _nested(config):
            return {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}
        return super().put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        if not _nested(config):
            super().put_writes(config, writes, task_id, task_path)


class CheckpointError(CodurError):
    """The checkpoint file could not be opened or written (locked too long, disk full,
    damaged): the run stops with one line, not a traceback."""


@contextmanager
def open_saver(root: Path, wait_s: float = WAIT_S) -> Iterator[RunSaver]:
    """The workspace's checkpointer, open for the block (the file is made if needed,
    readable by its owner only: it holds the run's files and model messages)."""
    path = db_path(root)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=wait_s)
    except (OSError, sqlite3.Error) as exc:
        raise CheckpointError(_failed(path, exc)) from None
    try:
        saver = RunSaver(conn, serde=serializer())
        saver.setup()
        yield saver
    except sqlite3.Error as exc:  # raised by the store, not by a node (their handler)
        raise CheckpointError(_failed(path, exc)) from None
    finally:
        conn.close()


def _failed(path: Path, exc: BaseException) -> str:
    return f"checkpoints ({path}): {exc} (runs.checkpoints=false runs without them)"


def run_graph(
    session: Session, task: str, saved: Saved | None, first: dict[str, Any] | None = None
) -> Iterator[dict[str, Any]]:
    """The run graph's states, step by step, from the task (and `first`: what the run
    decided before its graph, e.g. its edit scope) or (`saved`) from that checkpoint;
    each step saved before the next starts unless `runs.checkpoints` is off. The
    recursion limit counts the steps a resumed run had taken."""
    from langchain_core.messages import HumanMessage

    from codur.graph.build import build_graph

    cfg = session.config
    if saved is not None and not saved.next:  # it had ended: its last state is the end
        yield saved.values
        return
    steps = cfg.runtime.recursion_limit - (saved.step + 1 if saved else 0)
    config = {
        "recursion_limit": max(1, steps),
        **(saved.config if saved else thread(session.run_id)),
    }
    first = {**(first or {}), "task": task, "messages": [HumanMessage(task)], "iterations": 0}
    with ExitStack() as stack:
        saver = (
            stack.enter_context(open_saver(session.ws.root, cfg.runs.checkpoint_wait_s))
            if cfg.runs.checkpoints
            else None
        )
        yield from build_graph(saver).stream(
            None if saved else first,
            config,
            context=session,
            stream_mode="values",
            durability="sync",
        )


def thread(run_id: str) -> dict[str, Any]:
    """The LangGraph config naming a run's thread."""
    return {"configurable": {"thread_id": run_id}}


@dataclass(frozen=True)
class Saved:
    """A run's checkpoint to go on from: its state, the steps taken, the nodes to run next
    (none: the run had ended) and its config (thread and checkpoint id)."""

    values: dict[str, Any]
    step: int
    next: tuple[str, ...]
    config: dict[str, Any]


def last_checkpoint(root: Path, run_id: str) -> Saved | None:
    """The checkpoint run `run_id` of the workspace at `root` goes on from (None: none):
    its last one; but when a node's exception ended the run (the graph's error handler
    raised it again, and LangGraph saved an end after it), the one before, whose step
    failed, so that step runs again."""
    if not db_path(root).is_file():
        return None
    from codur.graph.build import build_graph

    with open_saver(root) as saver:
        history = build_graph(saver).get_state_history(thread(run_id), limit=2)
        states = list(history)
    if not states or not states[0].values:
        return None
    chosen = states[0]
    if not chosen.next and len(states) > 1 and any(t.error for t in states[1].tasks):
        chosen = states[1]
    step = int((chosen.metadata or {}).get("step", 0))
    return Saved(dict(chosen.values), step, tuple(chosen.next), dict(chosen.config))


def last_values(root: Path, run_id: str) -> dict[str, Any]:
    """The state values of run `run_id`'s newest checkpoint ({}: none), read from the
    file without building the graph (for `codur runs`)."""
    if not db_path(root).is_file():
        return {}
    with open_saver(root) as saver:
        found = saver.get_tuple(thread(run_id))
    return dict(found.checkpoint.get("channel_values", {})) if found else {}


def forget(root: Path, run_ids: list[str]) -> None:
    """Delete the checkpoints of these runs (finished, or pruned with their records)."""
    if not run_ids or not db_path(root).is_file():
        return
    with open_saver(root) as saver:
        for run_id in run_ids:
            saver.delete_thread(run_id)


def keep_only(root: Path, run_ids: list[str]) -> None:
    """Delete the checkpoints of runs that are not among `run_ids` (their records were
    pruned)."""
    if not db_path(root).is_file():
        return
    with open_saver(root) as saver:
        threads = [
            row[0] for row in saver.conn.execute("SELECT DISTINCT thread_id FROM checkpoints")
        ]
        for run_id in set(threads) - set(run_ids):
            saver.delete_thread(run_id)


def take_up(session: Session, record: RunRecord) -> Saved | None:
    """Take up `record`'s run in `session`: its snapshots and record again (knowing the
    files Codur changed as the checkpoint's `written` says), the write path's edit scope
    as the checkpoint holds it (with what the run learned of it), and the meter going on
    from the spend the checkpoint holds (before any model is built: a replay, a
    recording and the scripted model go on from its count). Returns that checkpoint
    (None: the run had none, so it starts again from the task)."""
    from codur.errors import UsageError
    from codur.models.usage import total
    from codur.scope import EditScope
    from codur.scope.learned import ScopeLearned
    from codur.undo.snapshot import reopen

    saved = last_checkpoint(session.ws.root, record.run_id)
    values = saved.values if saved is not None else {}
    scope, learned = values.get("scope"), values.get("scope_learned") or ScopeLearned()
    if saved is not None and (
        "ledger" in values
        or not isinstance(scope, EditScope)
        or not isinstance(learned, ScopeLearned)
    ):
        raise UsageError(
            f"run {record.run_id} was checkpointed by an older Codur, whose record of what "
            f"it spent and changed this one cannot read: run the task again "
            f"(`codur undo {record.run_id}` first puts its files back)"
        )
    session.changes.snapshot = reopen(
        session.ws, session.config, record, session.bus, session.sandbox
    )
    if isinstance(scope, EditScope):
        session.changes.scope = scope.knowing(learned)
    if saved is not None:
        session.snapshot.saved.update(values.get("written") or {})
        session.usage.go_on_from(total(values.get("usage")))
    session.bus.emit(
        "run.resume",
        run_id=record.run_id,
        step=saved.step if saved else None,
        next=list(saved.next) if saved else [],
        model_calls=session.usage.calls,
    )
    return saved
