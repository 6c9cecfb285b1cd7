"""Attempts: one record per model attempt (what happened, in one line for the next
prompt), and the request the coder gets from the state: the files as they are now, how
the check fails on them, what earlier attempts did."""

from __future__ import annotations

from dataclasses import asdict, replace
from functools import partial
from typing import Any

from codur.agents.registry import AgentRequest
from codur.edits.stubs import unimplemented
from codur.errors import WorkspaceError
from codur.graph.located import assemble
from codur.graph.state import AgentState, Attempt
from codur.litter import portable
from codur.session import Session
from codur.verify.derived import DerivedCheck
from codur.verify.oracle import OracleCheck
from codur.verify.plan import OutputCheck
from codur.verify.result import VerificationResult
from codur.verify.statements import DocExample, doctest_examples
from codur.verify.target import is_test


def attempt(state: AgentState, outcome: str, summary: str, **extra: Any) -> Attempt:
    """The record of the attempt that just ended (see Attempt.outcome)."""
    last = state.get("outcome")
    return {
        "iteration": state.get("iterations", 0) + 1,
        "agent": last.agent if last else "",
        "files_changed": list(last.files_changed) if last else [],
        "outcome": outcome,
        "summary": summary,
        "digest": last.digest if last else "",
        **extra,
    }


def failure_line(verdict: VerificationResult) -> str:
    """The failure in one line: the first suggestion, else the first failed check."""
    if verdict.suggestions:
        return verdict.suggestions[0]
    failed = verdict.failed
    return failed[0].summary if failed else "the check failed"


def _shown(session: Session, path: str) -> str | None:
    """A file's text for the prompt; None for one that is missing, not a regular UTF-8
    text file, or a secrets file (never shown to the model)."""
    target = session.ws.resolve(path)
    secret = not session.config.tools.allow_secrets and session.tool_context().is_secret(target)
    if not target.is_file() or secret:
        return None
    try:
        return session.ws.read_text(path)
    except WorkspaceError:
        return None  # not UTF-8 text: the model could not edit it anyway


def build_request(
    state: AgentState,
    session: Session,
    verdict: VerificationResult | None,
    texts: dict[str, str] | None = None,
) -> AgentRequest:
    """What the coder is asked now: about the files as they are, or as `texts` has them
    (their unimplemented functions and the evidence then follow those texts)."""
    files = dict(state.get("context_files", {}))
    named = bool(files)
    if not files and verdict is not None:
        files = dict.fromkeys(files_to_show(verdict))
    shown = texts or {p: text for p in files if (text := _shown(session, p)) is not None}
    view = assemble(
        session,
        state["task"],
        verdict,
        shown,
        partial(_shown, session),
        texts is None and not named,
    )
    shown = view.files
    if view.located and texts is None:
        session.bus.emit(
            "context.located",
            found=[asdict(f) for f in view.located],
            files=sorted(view.files),
            parts=sorted(view.parts),
            related=len(view.related),
        )
    attempts = state.get("attempts", [])
    hot: dict[str, set[int]] = {}
    if verdict is not None:
        for loc in verdict.locations:
            hot.setdefault(loc.path, set()).add(loc.line)
    cut = bool(attempts) and attempts[-1].get("outcome") == "cut"
    # an agent that failed to run says nothing about the code: not shown to the next one
    lines = [
        a["summary"] for a in attempts if a.get("summary") and a.get("outcome") != "agent failed"
    ]
    if (failed := state.get("last_error")) and failed.node == "execute":  # its retry
        lines.append(failed.note())
    stubs = {p: tuple(names) for p, text in shown.items() if (names := unimplemented_in(p, text))}
    evidence = None
    if verdict is not None and not verdict.passed:
        evidence = portable(verdict.feedback, session.ws.root)
    if stubs and verdict is not None and examples_only(verdict):
        stubs, only_stubs = exercised_stubs(shown, stubs)
        if only_stubs:  # "got nothing" from stubs; their examples are in the files shown
            evidence = None
    return AgentRequest(
        task=state["task"],
        files=shown,
        evidence=evidence,
        stubs=stubs,
        attempts=tuple(lines),
        edit_format="functions" if cut else None,
        hot_lines=hot,
        parts={
            p: tuple(dict.fromkeys([*names, *stubs.get(p, ())])) for p, names in view.parts.items()
        },
        related=view.related,
        seen=frozenset(a["digest"] for a in attempts if a.get("digest")),
        preferences=tuple(session.preferences()),
        context=session.chat_context,
        plan=tuple(state.get("plan", [])),
        plan_iteration=state.get("plan_iteration", 0),
        todos=tuple(state.get("todos", [])),
    )


def unimplemented_in(path: str, text: str) -> list[str]:
    """The functions of a Python file shown that have no body yet (not in tests)."""
    return unimplemented(text) if path.endswith(".py") and not is_test(path) else []


def exercised_stubs(
    shown: dict[str, str], stubs: dict[str, tuple[str, ...]]
) -> tuple[dict[str, tuple[str, ...]], bool]:
    """With the docstrings' examples as the only check: the stubs that have examples (the
    others are not what the check asks for), and whether every function with examples is
    a stub (then the failures only say "not written yet")."""
    exercised: dict[str, set[str]] = {}
    for item in doctest_examples({p: t for p, t in shown.items() if p.endswith(".py")}):
        name = item.function if isinstance(item, DocExample) else item.call.split("(", 1)[0]
        exercised.setdefault(item.path, set()).add(name)

    def checked(path: str, name: str) -> bool:  # `C.m` through the examples of class C
        return name in exercised.get(path, ()) or name.split(".")[0] in exercised.get(path, ())

    kept = {p: t for p, names in stubs.items() if (t := tuple(n for n in names if checked(p, n)))}
    if not kept:  # a fix of code with examples; a stub they reach shows in the evidence
        return {}, False
    stubbed = {n for names in kept.values() for n in names}
    stubbed |= {n.split(".")[0] for n in stubbed}  # a class whose examples reach its stubs
    only = all(names <= stubbed for names in exercised.values())
    return kept, only


def examples_only(verdict: VerificationResult) -> bool:
    """The check is only the docstrings' examples (nothing the files do not show); the
    oracle's guard (the protected files are as they were) checks no behaviour."""
    checks = [c for c in verdict.plan.checks if not isinstance(c, OracleCheck)]
    return bool(checks) and all(
        isinstance(c, DerivedCheck) and c.source == "doctest" for c in checks
    )


def fresh_request(state: AgentState, session: Session) -> AgentRequest | None:
    """The request as the run began: the files as the run found them and how the check
    failed on those, with the earlier attempts' lines (what not to do again). None when
    the files shown are as they were (nothing to start afresh from) or the first check is
    not known. Sampling draws some candidates from it: a wrong first attempt anchors every
    revision of itself, a fresh draw does not."""
    first = state.get("first_verification")
    if first is None or session.snapshot is None:
        return None
    now = build_request(state, session, state.get("verification"))
    before = {p: session.snapshot.original(p) for p in now.files}
    if any(text is None for text in before.values()) or before == now.files:
        return None
    texts = {p: t for p, t in before.items() if t is not None}
    return replace(build_request(state, session, first, texts), hot_lines={})


def files_to_show(verdict: VerificationResult) -> list[str]:
    """With no files named in the task: the entry point or the files a derived check
    checks, else the code the failure ran."""
    checks = verdict.plan.checks
    entries = [c.entry for c in checks if isinstance(c, OutputCheck)]
    entries += verdict.plan.derived_files
    code = [loc.path for loc in verdict.locations if not is_test(loc.path)]
    return list(dict.fromkeys(p for p in [*entries, *code] if p.endswith(".py")))[:3]
