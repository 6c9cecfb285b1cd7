"""The prompts a user may replace: one entry per file in `prompts/`, by the name users
see; the nodes' main prompts here, the parts of messages and the smaller prompts in
`codur.promptbook.parts`.

An entry names the shipped file in `prompts/`, says in a line what the prompt is for,
and lists its placeholders with an example value each (`codur prompts show` renders the
prompt with them). Required placeholders carry data the node cannot work without: a
custom template must hold them all. Optional ones may be left out. Adding a prompt is one
entry in SPECS (or PARTS), and its file.
"""

from __future__ import annotations

from codur.promptbook.parts import PARTS
from codur.promptbook.spec import PromptSpec

TASK = "make total() in main.py add every number of the list"
FILES = (
    "main.py\n```python\ndef total(xs):\n    return sum(xs[:-1])\n\nprint(total([1, 2, 3]))\n```"
)
QUESTION = "where is the config file loaded?"
EVIDENCE = (
    "\nThis is how the check fails on the files as they are now:\n\n"
    "Expected output:\n```\n6\n```\nActual output:\n```\n3\n```\n"
)
ATTEMPTS = (
    "\nEarlier attempts that did not work (do something different):\n"
    "- changed main.py; the check still failed: output line 1 is '3'\n"
)
FINDINGS = (
    "### Search the code for where the config is loaded\n"
    "codur/config/loader.py:212 `load_config` reads each layer and merges them"
)

SPECS: tuple[PromptSpec, ...] = (
    PromptSpec(
        "pre_planner",
        "pre_plan.md",
        "phase 1: classifies the request (greeting, question, file operation, code change)",
    ),
    PromptSpec(
        "planner",
        "plan.md",
        "phase 2: picks a route (edit, explain, run_command) and an agent, or tools (JSON)",
        {
            "agents": "- agent:coder: edits files and fixes bugs",
            "tools": "## Available tools\n- read_file(path): Read a text file.",
        },
        {"default_agent": "agent:coder"},
    ),
    PromptSpec(
        "coder",
        "coder_system.md",
        "the coding agent's system prompt (preferences and tools are added after it)",
    ),
    PromptSpec(
        "coder_task",
        "coder_task.md",
        "the coding agent's request: files, how the check fails, earlier attempts, task",
        {
            "files": FILES,
            "evidence": EVIDENCE,
            "attempts": ATTEMPTS,
            "task": TASK,
            "edit_rules": "Reply with the whole changed file in a fenced block after its path.",
            "notes": "(Note: main.py is shown in part.)",
        },
    ),
    PromptSpec(
        "coder_implement",
        "coder_implement.md",
        "the coding agent's first request for code with functions that have no body yet",
        {"files": FILES, "task": TASK, "names": "`total`"},
        {
            "verb": "has",
            "evidence": EVIDENCE,
            "attempts": ATTEMPTS,
            "edit_rules": "Reply with the complete file in one ```python block.",
            "notes": "",
        },
    ),
    PromptSpec(
        "ask_planner",
        "ask_plan.md",
        "ask mode: plans the research steps for a question (JSON list)",
        {"question": QUESTION, "findings": FINDINGS},
        {"max_steps": "4", "replan": ""},
    ),
    PromptSpec(
        "ask_executor",
        "ask_executor.md",
        "ask mode: carries out one research step with read-only tools",
        {"question": QUESTION, "findings": FINDINGS},
    ),
    PromptSpec(
        "ask_refinery",
        "ask_refine.md",
        "ask mode: decides whether the findings answer the question (CONTINUE / FINISH)",
        {"question": QUESTION, "findings": FINDINGS},
        {"done": "1", "total": "2"},
    ),
    PromptSpec(
        "ask_synthesizer",
        "ask_synthesize.md",
        "ask mode: writes the answer in markdown, citing path:line",
        {"question": QUESTION, "findings": FINDINGS},
        {"parts": ""},
    ),
    PromptSpec(
        "check_test",
        "check_test.md",
        "verification: asks for a pytest test of the task when nothing else can check it",
        {"files": FILES, "task": TASK},
    ),
    PromptSpec(
        "repair_review",
        "repair_review.md",
        "repair: asks whether a fix that only changes a constant is right, or passed by luck",
        {
            "differences": "- total([5]): returns 0 before the repair, returns 5 after",
            "diff": "--- a/main.py\n+++ b/main.py\n-    s = 0\n+    s = 1",
            "files": FILES,
            "task": TASK,
        },
    ),
)

TRACE = '- read_file {"path": "main.py"} -> def total(xs): ...\n- files changed: main.py (+1 -1)'
STEPS = "1. Read main.py\n2. Fix total() so it adds every number"

SPECS += (
    PromptSpec(
        "step_planner",
        "step_plan.md",
        "plan_verify mode: the step plan for a task nothing can check (seeds the todo list)",
        {"task": TASK, "max_steps": "6"},
        {"files": "main.py", "tool_instructions": "read_file, write_file, attempt_completion"},
    ),
    PromptSpec(
        "verifier",
        "verify_answer.md",
        "plan_verify mode: judges the completion against the task and the trace",
        {"task": TASK, "answer": "total() now sums the whole list", "trace_section": TRACE},
    ),
    PromptSpec(
        "replanner",
        "replan.md",
        "plan_verify mode: a better plan from the verifier's reasons",
        {"task": TASK, "verification_feedback": "- the last number is still left out"},
        {
            "iteration": "1",
            "previous_plan": STEPS,
            "trace_section": TRACE,
            "max_steps": "6",
            "tool_instructions": "read_file, write_file, attempt_completion",
        },
    ),
    PromptSpec(
        "plan_agent",
        "plan_agent.md",
        "plan_verify mode: the agent's system prompt (tools; attempt_completion ends it)",
    ),
    PromptSpec(
        "plan_agent_rules",
        "plan_agent_rules.md",
        "plan_verify mode: the todo list and the rules, after the agent's task",
        {"todos": "- [ ] Read main.py\n- [ ] Fix total() so it adds every number"},
    ),
    PromptSpec(
        "completion_reminder",
        "completion_reminder.md",
        "plan_verify mode: said when the agent replies without a tool call",
    ),
)

SPECS += PARTS

REGISTRY: dict[str, PromptSpec] = {spec.name: spec for spec in SPECS}
"""The specs by name."""
