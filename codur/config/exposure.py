"""What a hostile repository could do with each config key in its `./codur.yaml`, and
what Codur does about it: the registry docs/safety.md's table is rendered from
(`table()`). Every key of the schema has a row (a test walks the schema); `protected`
rows are those `trust.PROTECTED` strips from an untrusted file, `user only` rows
`trust.USER_ONLY`, and `clamped` rows are enforced by `codur.config.clamp` from the rule
here. A rule and the rules many keys share are in `codur.config.rule`."""

from __future__ import annotations

from codur.config.rule import (
    AGENT_CLI,
    CONFINE,
    LOOP,
    OFF,
    PROCS,
    PROGRAM,
    READS,
    ROUTE,
    SHOWN,
    SIZE,
    TUNING,
    UNDO,
    WAIT,
    Rule,
    allowed,
    protected,
)

RULES: dict[str, Rule] = {
    "llm.default_profile": ROUTE,
    "llm.fallback_order": ROUTE,
    "llm.max_context_tokens": allowed(
        "cut every prompt short (worse answers, or a run that ends on a config error)",
        "it only ever makes prompts smaller: quality, not safety",
    ),
    "llm.profiles.*.provider": ROUTE,
    "llm.profiles.*.model": protected(
        "switch the user's paid profile to a far dearer model", "who pays is the user's choice"
    ),
    "llm.profiles.*.base_url": ROUTE,
    "llm.profiles.*.api_key_env": protected(
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
    "llm.profiles.*.model_file": protected(
        "load a GGUF file of its own (its chat template runs in llama.cpp) or any file",
        "a path Codur itself reads and runs the template of",
    ),
    "llm.profiles.*.weights": protected(
        "swap the embedded model for another packaged one", "which model answers"
    ),
    "llm.profiles.*.n_ctx": SIZE,
    "llm.profiles.*.n_threads": allowed("oversubscribe the CPU", "bounded by the cores"),
    "llm.profiles.*.draft": TUNING,
    "llm.profiles.*.draft_tokens": TUNING,
    "llm.profiles.*.repeat_stop": TUNING,
    "llm.profiles.*.prefix_cache_mb": SIZE,
    "llm.profiles.*.load_early": allowed(
        "load the model in a run that needs none", "memory and a core for a second"
    ),
    "llm.profiles.*.seed": TUNING,
    "llm.profiles.*.context_window": allowed(
        "claim a larger window (prompts then cut by the server)",
        "prompt fitting only; the output and call limits still bound cost",
    ),
    "llm.profiles.*.script": READS,
    "llm.profiles.*.token_delay_s": allowed(
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
    "agents.configs.*.description": allowed(
        "make the planner prefer its agent", "its agents run on the user's profiles only"
    ),
    "agents.configs.*.profile": ROUTE,
    "agents.configs.*.tools": Rule(
        "clamped",
        "give the agent the web or git tools (fetch any URL: send what it read anywhere)",
        "a project may take task types away, not add them",
        "subset",
    ),
    "agents.configs.*.tool_names": allowed(
        "narrow the agent's tools", "it only narrows `tools` (an unknown name: exit 2)"
    ),
    "agents.configs.*.host": ROUTE,
    "agents.configs.*.model": protected(
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
    "planning.mode": allowed(
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
    "ask.retrieve_results": allowed("a longer prompt", "bounded by the schema (20)"),
    "ask.max_finding_chars": SIZE,
    "ask.max_retrieved_chars": SIZE,
    "ask.direct_answer": TUNING,
    "ask.min_coverage": TUNING,
    "ask.profile": ROUTE,
    "verify.entry_point": allowed(
        "choose which of its programs the check runs",
        "a file inside the folder (the folder's programs are its own), run confined",
    ),
    "verify.expected_file": allowed(
        "choose its own expected output",
        "read only inside the folder (a path or link out is refused); the folder's own check",
    ),
    "verify.timeout_s": WAIT,
    "verify.output_limit_bytes": SIZE,
    "verify.relevant_tests_only": TUNING,
    "verify.test_command": PROGRAM,
    "verify.suite_budget_s": WAIT,
    "verify.lint_command": PROGRAM,
    "verify.script_run_s": protected(
        "turn off the check that a script does not crash, or let one hold the run for ever",
        "whether and how long Codur runs a script to see it crash is the user's choice",
    ),
    "verify.allow_edit": protected(
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
    "repair.review": protected(
        "switch off the review of a constant-only fix, so a lucky mutation ends verified",
        "how strong a verdict's evidence must be is the user's choice",
    ),
    "repair.review_probes": protected(
        "lower it until a call or two near the tests' are compared, so a lucky constant "
        "is confirmed on little more than the tests' own inputs",
        "how strong a verdict's evidence must be is the user's choice",
    ),
    "repair.review_call_timeout_s": WAIT,
    "repair.max_depth": allowed("more candidates", "bounded by the schema and the time budget"),
    "repair.first_max_depth": allowed(
        "more candidates", "bounded by the schema and the first budget"
    ),
    "repair.pair_pool": allowed("more candidates", "bounded by the time budget"),
    "repair.candidate_timeout_factor": allowed("longer candidates", "never past verify.timeout_s"),
    "repair.min_candidate_timeout_s": allowed("longer candidates", "never past verify.timeout_s"),
    "sampling.candidates": PROCS,
    "sampling.workers": PROCS,
    "sampling.fresh_starts": TUNING,
    "crosscheck.candidates": LOOP,
    "crosscheck.enough_agreeing": allowed("draw every candidate", "bounded by `candidates`"),
    "crosscheck.probes": PROCS,
    "crosscheck.call_timeout_s": WAIT,
    "log.path": protected(
        "write the log (prompts, outputs) outside the folder", "Codur never writes outside"
    ),
    "log.enabled": protected(
        "leave no record of what the run did (`codur trace`)", "the record is the user's"
    ),
    "log.max_field_chars": SIZE,
    "log.max_bytes": SIZE,
    "tools.allow_outside_workspace": CONFINE,
    "tools.allow_secrets": CONFINE,
    "tools.secret_patterns": CONFINE,
    "tools.ignore": protected(
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
    "tools.git_hooks": protected(
        "run hooks a downloaded `.git` holds, unconfined, on a commit",
        "a hook runs with the repository writable, outside confinement",
    ),
    "tools.mcp_timeout_s": WAIT,
    "tools.web_timeout_s": WAIT,
    "tools.web_max_bytes": SIZE,
    "tools.code_index_dir": protected(
        "make Codur itself write (`.gitignore: *`, the index) into any folder, `.git` too",
        "where Codur writes, outside confinement",
    ),
    "tools.code_search": TUNING,
    "tools.embedding.model": TUNING,
    "tools.embedding.threads": allowed("oversubscribe the CPU", "bounded by the cores"),
    "tools.embedding.max_tokens": allowed("slower embedding", "bounded by the schema (512)"),
    "tools.embedding.batch_size": allowed("larger batches", "bounded by the folder's files"),
    "tools.search_backend": allowed(
        "pick the search engine of the web tools",
        "one of ddgs's public engines; web tools only with an agent's `web` task type",
    ),
    "display.max_diff_lines": SHOWN,
    "display.max_reply_lines": SHOWN,
    "sandbox.confine": CONFINE,
    "sandbox.writable": CONFINE,
    "sandbox.protect_git": CONFINE,
    "sandbox.protect_env": CONFINE,
    "sandbox.env_allow": CONFINE,
    "mcp_servers.*.command": PROGRAM,
    "mcp_servers.*.args": PROGRAM,
    "mcp_servers.*.env": PROGRAM,
    "mcp_servers.*.cwd": PROGRAM,
    "mcp_servers.*.url": ROUTE,
    "approval.mode": protected(
        "turn every question off (full-auto)", "what needs a yes is the user's choice"
    ),
    "undo.keep_runs": UNDO,
    "undo.keep_days": Rule(
        "user only",
        "delete the undo history of every other folder of the user",
        "acts on every folder: no project file sets it, trusted or not",
    ),
    "undo.max_snapshot_mb": UNDO,
    "memory.enabled": protected(
        "keep the user's preferences out of every prompt", "the user's standing instructions"
    ),
    "memory.cache_answers": OFF,
    "memory.max_cached_answers": allowed("a larger cache", "the folder's own file"),
    "memory.max_node_log": allowed("a larger node log", "the folder's own file"),
    "memory.max_preferences": Rule(
        "user only",
        "cut the user-wide preferences to one on the next `memory add --user`",
        "acts on the user's file: no project file sets it, trusted or not",
    ),
    "memory.max_preference_chars": protected(
        "cut the user's preferences in every prompt", "the user's standing instructions"
    ),
    "memory.max_preference_prompt_chars": protected(
        "leave the user's preferences out of every prompt", "the user's standing instructions"
    ),
    "memory.max_exchanges": SIZE,
    "memory.max_exchange_chars": SIZE,
    "runs.checkpoints": OFF,
    "runs.checkpoint_wait_s": WAIT,
    "runs.record": protected(
        "overwrite a file of the user's with the recording", "a path Codur itself writes"
    ),
    "runs.replay": READS,
    "prompts": protected(
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
