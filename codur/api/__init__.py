"""The Python API: `from codur import Agent`.

    agent = Agent(cwd="project", model="llm:local")
    result = agent.run("fix @main.py")
    result.is_verified, result.evidence, result.final_answer, result.files_changed

A run is the CLI's run (`codur.command.wired`): the same config layers (built-in, user,
the folder's codur.yaml, `CODUR_*`), then the Agent's arguments on top; the same
snapshot before any edit (`codur undo` works), debug log and verdict. Nothing is printed
unless `verbose`; nobody is asked anything (approvals that need a yes stop the run with
status `approval`). What `Agent(...)`, `run` and `arun` raise, and when, is listed in
docs/api.md ("Errors"): CodurErrors with one line, e.g. ConfigError for bad arguments or
config, UsageError for a file named with @ that is missing, ModelUnreachable for a model
that cannot be reached, WorkspaceBusy while another run may change the folder; every
other ending is a Result. `arun` cancelled stops its run as Ctrl-C would (docs/api.md).

`run_agentic_task(task, cwd=...)` is one run without keeping an Agent; `result.trace()`
is the run as `codur trace` shows it; `agent.get_prompt`, `preview_prompts`,
`save_prompts` and `reset_prompts` manage the prompts as `codur prompts` does.
"""

import logging

from codur.api.agent import API_PROFILE, Agent
from codur.api.functional import run_agentic_task
from codur.api.result import Result, Usage

__all__ = ["API_PROFILE", "Agent", "Result", "Usage", "run_agentic_task"]

logging.getLogger("codur").addHandler(logging.NullHandler())
