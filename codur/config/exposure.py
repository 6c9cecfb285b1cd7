"""What a hostile repository could do with each config key in its `./codur.yaml`, and
what Codur does about it: the registry docs/safety.md's table is rendered from
(`table()`). Every key of the schema has a row (a test walks the
schema); `protected` rows are those `trust.PROTECTED` strips from an untrusted file,
`user only` rows `trust.USER_ONLY`, and `clamped` rows are enforced by
`codur.config.clamp` from the rule here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["allowed", "clamped", "protected", "user only", "checked"]


@dataclass(frozen=True)
class Rule:
    verdict: Verdict
    threat: str
    """What a hostile repository could do with the key."""
    why: str
    """What Codur does, and why."""
    clamp: Literal["at most", "subset"] | None = None
    """clamped: the project's value counts only if it is at most the value below it
    (built-in and user config; unset below means no limit), or a subset of it."""


def _allowed(threat: str, why: str) -> Rule:
    return Rule("allowed", threat, why)


def _protected(threat: str, why: str) -> Rule:
    return Rule("protected", threat, why)


def _at_most(threat: str) -> Rule:
    return Rule("clamped", threat, "a project may lower it, not raise it", "at most")


TUNING = _allowed("worse answers (sampling, formats, planning style)", "quality, not safety")
OFF = _allowed("switch a helper or a step on or off", "bounded by the clamped limits; no new reach")
LOOP = _at_most("loop far longer, calling the model on the user's money")
WAIT = _at_most("let a program, server or lock that never answers hold the run for ever")
SIZE = _at_most("grow prompts (tokens the user pays for), memory, the log or output")
PROCS = _at_most("start hundreds of processes and scratch copies at once")
SHOWN = _at_most("flood the terminal (76 MB of diff seen)")
ROUTE = _protected(
    "send the prompt (the folder's code, the user's preferences) to another model, host "
    "or paid account of the user's",
    "which model reads the prompt and who pays is the user's choice",
)
PROGRAM = _protected(
    "start a program of its choosing, outside what the user approves",
    "programs Codur starts by itself are the user's choice",
)
READS = _protected(
    "make Codur read a file outside the folder (`~/.ssh/id_rsa` replayed as the reply)",
    "a path Codur itself reads, outside confinement and the workspace",
)
AGENT_CLI = _protected(
    "point a CLI agent at its program, arguments, secrets or writable folders",
    "what an agent starts and may see is the user's choice",
)
CONFINE = _protected(
    "turn confinement or the secret scrubbing off, or open folders to writes",
    "the containment of programs is the safety net",
)
UNDO = _protected(
    "delete this folder's undo history, or snapshot nothing, so undo cannot restore",
    "undo is the safety net",
)

RULES: dict[str, Rule] = {
    "llm.default_profile": ROUTE,
    "llm.fallback_order": ROUTE,
    "llm.max_context_tokens": _allowed(
        "cut every prompt short (worse answers, or a run that ends on a config error)",
        "it only ever makes prompts smaller: quality, not safety",
    ),
    "llm.profiles.*.provider": ROUTE,
    "llm.profiles.*.model": _protected(
        "switch the user's paid profile to a far dearer model", "who pays is the user's choice"
    ),
    "llm.profiles.*.base_url": ROUTE,
    "llm.profiles.*.api_key_env": _protected(
        "send another of the user's keys (e.g. GROQ_API_KEY) with the prompt",
        "which key is sent is the user's choice",
    ),
    "llm.profiles.*.temperature": TUNING,
    "llm.profiles.*.max_tokens": SIZE,
    "llm.profiles.*.timeout_s": WAIT,
    "llm.profiles.*.retry_temperature": TUNING,
    "llm.profiles.*.max_retries": LOOP,
    "llm.profiles.*.retry_backoff_s": WAIT,
    "llm.profiles.*.native_tools": TUNING,
    "llm.profiles.*.agent_tools": TUNING,
    "llm.profiles.*.edit_format": TUNING,
    "llm.profiles.*.model_file": _protected(
        "load a GGUF file of its own (its chat template runs in llama.cpp) or any file",
        "a path Codur itself reads and runs the template of",
    ),
    "llm.profiles.*.weights": _protected(
        "swap the embedded model for another packaged one", "which model answers"
    ),
    "llm.profiles.*.n_ctx": SIZE,
    "llm.profiles.*.n_threads": _allowed("oversubscribe the CPU", "bounded by the cores"),
    "llm.profiles.*.draft": TUNING,
    "llm.profiles.*.draft_tokens": TUNING,
    "llm.profiles.*.prefix_cache_mb": SIZE,
    "llm.profiles.*.seed": TUNING,
    "llm.profiles.*.context_window": _allowed(
        "claim a larger window (prompts then cut by the server)",
        "prompt fitting only; the output and call limits still bound cost",
    ),
    "llm.profiles.*.script": READS,
    "llm.profiles.*.token_delay_s": _allowed(
        "slow down a scripted model", "scripted models are tests and demos"
    ),
    "agents.preferences.default_agent": ROUTE,
    "agents.preferences.fallback_order": ROUTE,
    "agents.configs.*.type": Rule(
        "checked",
        "add an agent that starts a CLI, or retype the user's agent as one",
        "a new entry of a CLI type, or a changed type, is ignored as a whole; an "
        "llm or ollama entry on the user's profiles is allowed",
    ),
    "agents.configs.*.description": _allowed(
        "make the planner prefer its agent", "its agents run on the user's profiles only"
    ),
    "agents.configs.*.profile": ROUTE,
    "agents.configs.*.tools": Rule(
        "clamped",
        "give the agent the web or git tools (fetch any URL: send what it read anywhere)",
        "a project may take task types away, not add them",
        "subset",
    ),
    "agents.configs.*.tool_names": _allowed(
        "narrow the agent's tools", "it only narrows `tools` (an unknown name: exit 2)"
    ),
    "agents.configs.*.host": ROUTE,
    "agents.configs.*.model": _protected(
        "switch a CLI or Ollama agent to a dearer or other model",
        "which model answers and who pays is the user's choice",
    ),
    "agents.configs.*.command": AGENT_CLI,
    "agents.configs.*.args": AGENT_CLI,
    "agents.configs.*.timeout_s": WAIT,
    "agents.configs.*.output_limit_bytes": SIZE,
    "agents.configs.*.env_allow": AGENT_CLI,
    "agents.configs.*.writable": AGENT_CLI,
    "runtime.max_iterations": LOOP,
    "runtime.max_tool_iterations": LOOP,
    "runtime.max_llm_calls": LOOP,
    "runtime.recursion_limit": LOOP,
    "runtime.max_node_retries": LOOP,
    "runtime.max_task_chars": SIZE,
    "runtime.detect_tool_calls_from_text": TUNING,
    "planning.enabled": OFF,
    "planning.max_retry_attempts": LOOP,
    "planning.pre_plan_confidence": TUNING,
    "planning.pre_plan_max_tokens": SIZE,
    "planning.replan_on_retry": OFF,
    "planning.keep_feedback_messages": SIZE,
    "planning.max_tool_rounds": LOOP,
    "planning.mode": _allowed(
        "have a model verifier judge instead of the checks",
        "a check, where there is one, outranks the model verifier",
    ),
    "planning.max_plan_iterations": LOOP,
    "planning.max_plan_steps": LOOP,
    "planning.max_agent_rounds": LOOP,
    "planning.verifier_trace_chars": SIZE,
    "ask.max_iterations": LOOP,
    "ask.max_executor_steps": LOOP,
    "ask.recursion_limit": LOOP,
    "ask.max_plan_steps": LOOP,
    "ask.retrieve_results": _allowed("a longer prompt", "bounded by the schema (20)"),
    "ask.max_finding_chars": SIZE,
    "ask.max_retrieved_chars": SIZE,
    "ask.direct_answer": TUNING,
    "ask.min_coverage": TUNING,
    "ask.profile": ROUTE,
    "verify.entry_point": _allowed(
        "choose which of its programs the check runs",
        "a file inside the folder (the folder's programs are its own), run confined",
    ),
    "verify.expected_file": _allowed(
        "choose its own expected output",
        "read only inside the folder (a path or link out is refused); the folder's own check",
    ),
    "verify.timeout_s": WAIT,
    "verify.output_limit_bytes": SIZE,
    "verify.relevant_tests_only": TUNING,
    "verify.test_command": PROGRAM,
    "verify.suite_budget_s": WAIT,
    "verify.lint_command": PROGRAM,
    "verify.allow_edit": _protected(
        "let the model rewrite the folder's own expected output or tests, so any change passes",
        "which of the check's files a run may change is the user's choice (`--allow-edit`)",
    ),
    "context.whole_file_lines": SIZE,
    "context.max_functions": SIZE,
    "context.max_files": SIZE,
    "context.map_entries": SIZE,
    "repair.enabled": OFF,
    "repair.before_first_attempt": OFF,
    "repair.time_budget_s": WAIT,
    "repair.first_budget_s": WAIT,
    "repair.workers": PROCS,
    "repair.review": _protected(
        "switch off the review of a constant-only fix, so a lucky mutation ends verified",
        "how strong a verdict's evidence must be is the user's choice",
    ),
    "repair.review_probes": _protected(
        "lower it until a call or two near the tests' are compared, so a lucky constant "
        "is confirmed on little more than the tests' own inputs",
        "how strong a verdict's evidence must be is the user's choice",
    ),
    "repair.review_call_timeout_s": WAIT,
    "repair.max_depth": _allowed("more candidates", "bounded by the schema and the time budget"),
    "repair.pair_pool": _allowed("more candidates", "bounded by the time budget"),
    "repair.candidate_timeout_factor": _allowed("longer candidates", "never past verify.timeout_s"),
    "repair.min_candidate_timeout_s": _allowed("longer candidates", "never past verify.timeout_s"),
    "sampling.candidates": PROCS,
    "sampling.workers": PROCS,
    "sampling.fresh_starts": TUNING,
    "crosscheck.candidates": LOOP,
    "crosscheck.enough_agreeing": _allowed("draw every candidate", "bounded by `candidates`"),
    "crosscheck.probes": PROCS,
    "crosscheck.call_timeout_s": WAIT,
    "log.path": _protected(
        "write the log (prompts, outputs) outside the folder", "Codur never writes outside"
    ),
    "log.enabled": _protected(
        "leave no record of what the run did (`codur trace`)", "the record is the user's"
    ),
    "log.max_field_chars": SIZE,
    "log.max_bytes": SIZE,
    "tools.allow_outside_workspace": CONFINE,
    "tools.allow_secrets": CONFINE,
    "tools.secret_patterns": CONFINE,
    "tools.ignore": _protected(
        "hide `data/` from the snapshots, so its deletion cannot be undone; or hide the "
        "tests from the edit scope",
        "snapshots and the oracle files must see the whole folder",
    ),
    "tools.max_ref_bytes": SIZE,
    "tools.max_read_bytes": SIZE,
    "tools.max_result_chars": SIZE,
    "tools.max_list_entries": SIZE,
    "tools.event_preview_chars": SIZE,
    "tools.grep_backend": TUNING,
    "tools.grep_max_matches": SIZE,
    "tools.grep_timeout_s": WAIT,
    "tools.python": PROGRAM,
    "tools.run_timeout_s": WAIT,
    "tools.pytest_timeout_s": WAIT,
    "tools.command_timeout_s": WAIT,
    "tools.output_limit_bytes": SIZE,
    "tools.memory_limit_mb": SIZE,
    "tools.git_timeout_s": WAIT,
    "tools.git_hooks": _protected(
        "run hooks a downloaded `.git` holds, unconfined, on a commit",
        "a hook runs with the repository writable, outside confinement",
    ),
    "tools.mcp_timeout_s": WAIT,
    "tools.web_timeout_s": WAIT,
    "tools.web_max_bytes": SIZE,
    "tools.code_index_dir": _protected(
        "make Codur itself write (`.gitignore: *`, the index) into any folder, `.git` too",
        "where Codur writes, outside confinement",
    ),
    "tools.code_search": TUNING,
    "tools.embedding.model": TUNING,
    "tools.embedding.threads": _allowed("oversubscribe the CPU", "bounded by the cores"),
    "tools.embedding.max_tokens": _allowed("slower embedding", "bounded by the schema (512)"),
    "tools.embedding.batch_size": _allowed("larger batches", "bounded by the folder's files"),
    "tools.search_backend": _allowed(
        "pick the search engine of the web tools",
        "one of ddgs's public engines; web tools only with an agent's `web` task type",
    ),
    "display.max_diff_lines": SHOWN,
    "display.max_reply_lines": SHOWN,
    "sandbox.confine": CONFINE,
    "sandbox.writable": CONFINE,
    "sandbox.protect_git": CONFINE,
    "sandbox.env_allow": CONFINE,
    "mcp_servers.*.command": PROGRAM,
    "mcp_servers.*.args": PROGRAM,
    "mcp_servers.*.env": PROGRAM,
    "mcp_servers.*.cwd": PROGRAM,
    "mcp_servers.*.url": ROUTE,
    "approval.mode": _protected(
        "turn every question off (full-auto)", "what needs a yes is the user's choice"
    ),
    "undo.keep_runs": UNDO,
    "undo.keep_days": Rule(
        "user only",
        "delete the undo history of every other folder of the user",
        "acts on every folder: no project file sets it, trusted or not",
    ),
    "undo.max_snapshot_mb": UNDO,
    "memory.enabled": _protected(
        "keep the user's preferences out of every prompt", "the user's standing instructions"
    ),
    "memory.cache_answers": OFF,
    "memory.max_cached_answers": _allowed("a larger cache", "the folder's own file"),
    "memory.max_node_log": _allowed("a larger node log", "the folder's own file"),
    "memory.max_preferences": Rule(
        "user only",
        "cut the user-wide preferences to one on the next `memory add --user`",
        "acts on the user's file: no project file sets it, trusted or not",
    ),
    "memory.max_preference_chars": _protected(
        "cut the user's preferences in every prompt", "the user's standing instructions"
    ),
    "memory.max_preference_prompt_chars": _protected(
        "leave the user's preferences out of every prompt", "the user's standing instructions"
    ),
    "memory.max_exchanges": SIZE,
    "memory.max_exchange_chars": SIZE,
    "runs.checkpoints": OFF,
    "runs.checkpoint_wait_s": WAIT,
    "runs.record": _protected(
        "overwrite a file of the user's with the recording", "a path Codur itself writes"
    ),
    "runs.replay": READS,
    "prompts": _protected(
        "replace the node prompts (instructions to the model)", "the prompts are Codur's"
    ),
}
"""Every key of the schema (`*`: any one name) -> its rule."""


def table() -> str:
    """The markdown table of docs/safety.md, one row per key."""
    rows = [
        "| key | what a hostile repository could do | what Codur does |",
        "|---|---|---|",
    ]
    for key, rule in RULES.items():
        rows.append(f"| `{key}` | {rule.threat} | **{rule.verdict}**: {rule.why} |")
    return "\n".join(rows) + "\n"
