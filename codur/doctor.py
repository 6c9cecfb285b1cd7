"""`codur doctor`: what a user checks when something is off, found as a run would find
it: the project's Python and its pytest, the check Codur would use, the sandbox, the
model and its speed on this machine, the trust state of the folder's codur.yaml.

Each part is a function returning plain data (`Finding`); `render` makes the text.
Nothing here prints (`codur.cli_info.doctor` does).
"""

from __future__ import annotations

import shlex
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codur.config import CodurConfig
from codur.errors import CodurError, ConfigError
from codur.events import EventBus
from codur.project.interpreter import Interpreter, find_interpreter
from codur.sandbox import Sandbox
from codur.sandbox.confine import detect

SPEED_PROMPT_REPEAT = 40
"""Times the speed prompt is repeated to time prompt evaluation (a few hundred tokens)."""
SPEED_MAX_TOKENS = 64
"""Tokens the timed generation may produce."""


@dataclass(frozen=True)
class Finding:
    """One part of the report: its name, a line or a few for people, whether it is fine
    (None: nothing to judge), and its data for --json."""

    name: str
    lines: list[str]
    ok: bool | None = None
    data: dict[str, Any] = field(default_factory=dict)


def python_finding(found: Interpreter) -> Finding:
    """The project's Python and its pytest."""
    if found.pytest:
        pytest = f"pytest: {found.pytest}"
    elif found.version:
        pytest = f"pytest: missing: install with {found.install_pytest}"
    else:  # no pip of it to install with either
        pytest = "pytest: unknown: the interpreter does not run"
    lines = [f"python: {found.line}", pytest]
    if found.warning:
        lines.append(f"warning: {found.warning}")
    if found.problem and not found.version:
        lines.append(f"problem: {found.problem}")
    return Finding("python", lines, bool(found.version), found.as_dict())


def check_finding(folder: Path, config: CodurConfig, box: Sandbox, found: Interpreter) -> Finding:
    """The check Codur would use in the folder as it is now (the verify plan, nothing
    runs), and whether the project's Python can run it."""
    from codur.tools.context import ToolContext
    from codur.verify.preflight import planned_check, pytest_runs
    from codur.workspace import Workspace

    ctx = ToolContext(Workspace(folder), config.tools, sandbox=box, interpreter=lambda: found)
    try:
        plan = planned_check(ctx, config.verify)
    finally:
        ctx.close()
    checks = [_shown(check) for check in plan.checks]
    lines = [f"check: {c}" for c in checks] or ["check: none"]
    lines.append(f"why: {plan.reasoning}")
    needs = pytest_runs(plan)
    ok = not (needs and found.pytest is None)
    if not ok:
        lines.append(
            f"problem: the check needs pytest; install it with {found.install_pytest}"
            if found.version
            else "problem: the check needs pytest, and the project's Python does not run: "
            "set tools.python to a working interpreter"
        )
    data = {"checks": checks, "reasoning": plan.reasoning, "needs_pytest": bool(needs)}
    return Finding("check", lines, ok, data)


def _shown(check: Any) -> str:
    """A check in a line: its kind and what it runs."""
    kind = check.kind
    if kind == "output":
        return f"output: python {check.entry}, compared with {check.against}"
    if kind == "tests" and check.runner == "command":
        return f"tests: {shlex.join(check.command or [])} (verify.test_command)"
    if kind == "tests" and check.runner == "unittest":
        paths = check.paths
        named = [p.removesuffix(".py").replace("/", ".") for p in paths]
        found = named if paths[0].endswith(".py") else ["discover", "-s", paths[0]]
        return f"tests: python -m unittest {shlex.join(found)}"
    if kind == "tests":
        return f"tests: pytest {' '.join(check.paths)}"
    if kind == "derived":
        return f"derived: {check.description}"
    if kind == "static":
        return f"static: syntax and imports of {', '.join(check.files) or 'the changed files'}"
    return kind


def sandbox_finding(config: CodurConfig, folder: Path) -> tuple[Finding, Sandbox]:
    """How the programs would be confined (`sandbox.confine`), or why they would not be,
    and what in `folder` stays read-only for them (`.git`, the project's virtualenv);
    and the sandbox to probe with (unconfined when the configured one cannot be used)."""
    choice = config.sandbox.confine
    confiner, why = detect(choice, config.tools.run_timeout_s)
    try:
        box = Sandbox.from_config(config)
    except CodurError as exc:  # a required confinement that is not available here
        data = {"confine": "none", "choice": choice, "why": str(exc)}
        return Finding("sandbox", [f"sandbox: none ({exc})"], False, data), Sandbox()
    method = confiner.name if confiner is not None else "none"
    line = f"sandbox: {method}" + (f" ({why})" if why else f" (sandbox.confine: {choice})")
    kept, writable = read_only_paths(config, folder, box)
    if kept:
        line += f"; read-only for programs: {', '.join(kept)}"
    if writable:
        line += f"; {writable}"
    data = {"confine": method, "choice": choice, "why": why, "read_only": kept}
    return Finding("sandbox", [line], None, data), box


def read_only_paths(config: CodurConfig, folder: Path, box: Sandbox) -> tuple[list[str], str]:
    """The paths of `folder` a run keeps read-only for its programs (as the run decides:
    `Session.sandbox`), and why the ones it would keep stay writable (empty: none)."""
    from codur.project.interpreter import environment_inside
    from codur.sandbox.gitro import protect_git

    env = environment_inside(folder, config.tools.python) if config.sandbox.protect_env else None
    keep = (env,) if env is not None else ()
    git = config.sandbox.protect_git
    if box.confiner is None or not (git or keep):
        return [], ""
    switch = config.sandbox.confine == "auto"
    kept, why = protect_git(box, folder, config.tools.run_timeout_s, switch, keep, git)
    names = [p.name for p in kept.read_only]
    wanted = [*([".git"] if git else []), *(p.name for p in keep)]
    return names, f"{' and '.join(wanted)} stay writable: {why}" if why else ""


def model_finding(config: CodurConfig, profile: str | None, measure: bool) -> Finding:
    """The model profile, and its speed here: a short timed generation (prompt tokens
    per second with a longer prompt and one token out, generated tokens per second with
    a short prompt). `measure` False (--no-model), or a model that cannot load: why, in
    one line."""
    name, prof = config.profile(profile)
    what = f"model: profile {name} ({prof.provider}, {prof.model or prof.weights or '-'})"
    data: dict[str, Any] = {"profile": name, "provider": prof.provider, "model": prof.model}
    if not measure:
        return Finding("model", [what, "speed: not measured (--no-model)"], None, data)
    try:
        speed = measure_speed(name, config)
    except CodurError as exc:  # the model cannot be reached or loaded: said, then go on
        hosted = prof.provider in ("openai", "ollama", "anthropic")
        cannot = "cannot be reached or refused the call" if hosted else "cannot load"
        line = f"speed: not measured: the model {cannot} ({exc})"
        return Finding("model", [what, line], False, {**data, "error": str(exc)})
    line = (
        f"speed: prompt {speed['prompt_tokens_per_s']} tokens/s, generation "
        f"{speed['generation_tokens_per_s']} tokens/s (load {speed['load_s']} s)"
    )
    if not (speed["prompt_tokens_per_s"] or speed["generation_tokens_per_s"]):
        line = (
            f"speed: not measured: the server answers (first call {speed['load_s']} s) but "
            "reports no token counts"
        )
    return Finding("model", [what, line], True, {**data, **speed})


def measure_speed(name: str, config: CodurConfig) -> dict[str, float]:
    """Profile `name`'s speed on this machine: its load time, prompt tokens per second (a
    few hundred tokens in, one out) and generated tokens per second (a short prompt, up to
    SPEED_MAX_TOKENS out); also used by bench/latency.py. CodurError: it cannot load."""
    from langchain_core.messages import HumanMessage

    from codur.models.client import ModelClient
    from codur.models.usage import Usage
    from codur.promptbook import PromptBook

    _, prof = config.profile(name)
    client = ModelClient(name, prof, EventBus(), Usage(max_calls=2))
    start = time.perf_counter()
    client.model  # noqa: B018 - loaded (timed apart from the calls)
    load = time.perf_counter() - start
    text = PromptBook(config.prompts).render("doctor_speed").strip()
    # A nonce first: no cached prefix (the KV cache, the saved system prefix) applies.
    fresh = f"{uuid.uuid4().hex}\n" + " ".join([text] * SPEED_PROMPT_REPEAT)
    start = time.perf_counter()
    client.invoke([HumanMessage(fresh)], max_tokens=1)
    read = time.perf_counter() - start
    usage = client.usage
    read_tokens = usage.prompt_tokens - usage.cached_prompt_tokens
    before = (usage.completion_tokens, usage.prompt_tokens, usage.cached_prompt_tokens)
    start = time.perf_counter()
    client.invoke([HumanMessage(fresh[:33] + text)], max_tokens=SPEED_MAX_TOKENS)
    written = client.usage.completion_tokens - before[0]
    evaluated = (usage.prompt_tokens - before[1]) - (usage.cached_prompt_tokens - before[2])
    # The generation time without the short prompt's evaluation, at the rate just measured.
    write = time.perf_counter() - start - (evaluated * read / read_tokens if read_tokens else 0)
    return {
        "load_s": round(load, 2),
        "prompt_tokens": read_tokens,
        "prompt_tokens_per_s": round(read_tokens / read, 1) if read > 0 else 0.0,
        "generated_tokens": written,
        "generation_tokens_per_s": round(written / write, 1) if write > 0 else 0.0,
    }


def trust_finding(folder: Path) -> Finding:
    """Whether the folder's codur.yaml is trusted as it is now (`codur trust`)."""
    from codur.config.trust import is_trusted

    path = folder.resolve() / "codur.yaml"
    if not path.is_file():
        return Finding("trust", ["codur.yaml: none in this folder"], None, {"file": None})
    trusted = is_trusted(path)
    line = f"codur.yaml: {'trusted' if trusted else 'not trusted'} ({path})"
    if path.is_symlink():
        line += "; a link is never trusted: copy the file into the folder to trust it"
    elif not trusted:
        line += f"; its protected keys are ignored until: codur trust -C {folder}"
    return Finding("trust", [line], trusted, {"file": str(path), "trusted": trusted})


def diagnose(
    folder: Path, config: CodurConfig, profile: str | None, measure: bool
) -> list[Finding]:
    """Every part of the report, in order."""
    sandbox, box = sandbox_finding(config, folder)
    try:
        found = find_interpreter(folder, config.tools.python, box, config.tools.run_timeout_s)
    except ConfigError as exc:  # tools.python names none: the rest is still worth saying
        return [
            Finding("python", [f"problem: {exc}"], False, {"problem": str(exc)}),
            Finding("check", ["check: not known: no project Python to run it"], False),
            sandbox,
            model_finding(config, profile, measure),
            trust_finding(folder),
        ]
    return [
        python_finding(found),
        check_finding(folder, config, box, found),
        sandbox,
        model_finding(config, profile, measure),
        trust_finding(folder),
    ]


def render(findings: list[Finding]) -> str:
    return "\n".join(line for finding in findings for line in finding.lines)


def as_json(findings: list[Finding]) -> dict[str, Any]:
    """The report for --json: each part by name, its lines, whether it is fine, its data."""
    return {f.name: {"ok": f.ok, "lines": f.lines, **f.data} for f in findings}
