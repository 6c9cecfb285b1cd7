"""The prompts besides the nodes' main ones: the parts a message is built from (the
coder's failure evidence, the answer formats, the verification reports) and the short
prompts nodes send on the side (a retry note, the tool results, the greeting). Each is
replaceable like a node's prompt (`codur.promptbook.registry`)."""

from __future__ import annotations

from codur.promptbook.spec import PromptSpec

FAILURE = "Expected output:\n```\n6\n```\nActual output:\n```\n3\n```"
TOOLS = "- read_file(path: string): Read a text file."

_CODER: tuple[PromptSpec, ...] = (
    PromptSpec(
        "coder_evidence",
        "coder_evidence.md",
        "the coder's request: how the check fails on the files as they are now",
        {"failure": FAILURE},
    ),
    PromptSpec(
        "coder_attempts",
        "coder_attempts.md",
        "the coder's request: the earlier attempts that did not work, a line each",
        {"attempts": "- changed main.py; the check still failed: output line 1 is '3'"},
    ),
    PromptSpec(
        "coder_in_part",
        "coder_in_part.md",
        "the coder's request: the note for a file shown in part",
        {"path": "main.py"},
        {"lines": "1-40, 120-160", "total": "1,204"},
    ),
    PromptSpec(
        "coder_map",
        "coder_map.md",
        "the coder's request: related code not shown, where it is and how it is called",
        {"entries": "- codur/config/loader.py:212 load_config(root, extra, overrides)"},
    ),
    PromptSpec(
        "plan_section",
        "plan_section.md",
        "plan_verify mode: the step plan after the agent's task",
        {"steps": "1. Read main.py\n2. Fix total() so it adds every number"},
        {"iteration": "1"},
    ),
    PromptSpec(
        "tool_text_calls",
        "tool_text_calls.md",
        "how an agent whose model has no native tool calls calls a tool (JSON in its reply)",
    ),
    PromptSpec(
        "edit_rejected",
        "edit_rejected.md",
        "said to the agent when its edit could not be applied",
        {"error": "main.py: the SEARCH part matches nothing"},
    ),
    PromptSpec(
        "external_agent",
        "external_agent.md",
        "an external agent CLI's task: the task, the files named, failure and attempts",
        {"task": "make total() in main.py add every number", "files": "main.py"},
        {
            "evidence": "\nThis is how the check fails:\n\n" + FAILURE + "\n",
            "attempts": "",
            "preferences": "",
            "context": "",
        },
    ),
)

_ASK: tuple[PromptSpec, ...] = (
    PromptSpec(
        "ask_part",
        "ask_part.md",
        "ask mode: a multi-part question's answer call for one part (each part is answered"
        " in its own call, from the evidence of all)",
        {
            "n": "2",
            "count": "2",
            "question": "Where is the VAT rate decided, and which function uses it?",
        },
    ),
)

_EDIT_FORMATS: tuple[PromptSpec, ...] = tuple(
    PromptSpec(f"edit_{name}", f"edit_{name}.md", f"the answer format: {what}")
    for name, what in (
        ("whole_file", "the whole changed file (edit format whole_file)"),
        ("search_replace", "SEARCH/REPLACE blocks (edit format search_replace)"),
        ("functions", "the changed functions only (edit format functions)"),
        ("functions_in_part", "the changed functions, for files shown in part"),
        ("implement", "the whole file, when one file's functions are to be written"),
    )
)

_VERIFICATION: tuple[PromptSpec, ...] = (
    PromptSpec(
        "verification_failed",
        "verification_failed.md",
        "verification: the report of a program whose output is not the expected one",
        {
            "problems": "Running `python main.py` failed the check.",
            "expected": "6",
            "actual": "3",
        },
        {"error": "", "diff": ""},
    ),
    PromptSpec(
        "verification_error",
        "verification_error.md",
        "verification: the program's stderr, in the failure report",
        {"error": "Traceback (most recent call last): ...\nZeroDivisionError: division by zero"},
    ),
    PromptSpec(
        "verification_diff",
        "verification_diff.md",
        "verification: the difference of a long output from the expected one",
        {"diff": "-6\n+3"},
    ),
    PromptSpec(
        "verification_tests",
        "verification_tests.md",
        "verification: the report of the project's failing tests",
        {
            "command": "pytest tests/test_total.py",
            "counts": "1 passed, 1 failed, 0 errors",
            "failing": "- tests/test_total.py::test_all",
        },
        {"output": "E   assert 3 == 6"},
    ),
    PromptSpec(
        "verification_derived",
        "verification_derived.md",
        "verification: the report of failing checks Codur derived from the task or docs",
        {
            "origin": "the examples in the task",
            "counts": "0 passed, 1 failed, 0 errors",
            "failures": "- total([1, 2, 3]) returned 3, expected 6",
        },
        {"output": ""},
    ),
    PromptSpec(
        "verification_derived_output",
        "verification_derived_output.md",
        "verification: the end of pytest's output, in the derived checks' report",
        {"output": "E   assert 3 == 6"},
    ),
)

_SIDE: tuple[PromptSpec, ...] = (
    PromptSpec(
        "planner_tool_results",
        "plan_tool_results.md",
        "phase 2: the results of the tools the planner called, and what to decide next",
        {"results": 'read_file({"path": "main.py"}) -> ok:\ndef total(xs): ...'},
        {"round": "1", "rounds": "3"},
    ),
    PromptSpec(
        "planner_retry",
        "plan_retry.md",
        "phase 2: asks again for one JSON object after a reply that could not be used",
        {"error": "no JSON object in the reply"},
    ),
    PromptSpec(
        "plan_no_tools",
        "plan_no_tools.md",
        "plan_verify mode: what the step planner is told when the agent has no tools",
    ),
    PromptSpec("greeting", "greeting.md", "the reply to a greeting (no model is called)"),
    PromptSpec(
        "preferences",
        "preferences.md",
        "the user's standing preferences, after a system prompt",
        {"preferences": "- use type hints"},
    ),
    PromptSpec(
        "session_context",
        "session_context.md",
        "codur chat: what the next task is told of the session so far",
        {"exchanges": "1. task: fix total()\n   ended: done"},
        {"files": "main.py", "changed": "(none)"},
    ),
    PromptSpec(
        "local_tool_actions",
        "local_tool_actions.md",
        "the embedded model's tool protocol: one JSON action a reply, and the tools",
        {"tools": TOOLS},
    ),
    PromptSpec(
        "local_tool_reminder",
        "local_tool_reminder.md",
        "the embedded model: the request repeated after a tool result",
        {"request": "What does notes.txt say?"},
    ),
    PromptSpec(
        "doctor_speed",
        "doctor_speed.md",
        "codur doctor: the prompt that measures the model's speed",
    ),
)

PARTS: tuple[PromptSpec, ...] = (*_CODER, *_ASK, *_EDIT_FORMATS, *_VERIFICATION, *_SIDE)
"""The specs of these prompts."""
