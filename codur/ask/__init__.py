"""Ask mode: answer a question about the codebase, never editing a file.

A plan of research steps (planner), a ReAct executor per step (executor_llm <-> tool_node,
its message buffer cleared between steps), the findings stored per step (aggregate), a
refinery that decides CONTINUE or FINISH with a reason, and a synthesizer that writes a
markdown answer citing `path:line`. The graph is in `codur.ask.build`.
"""
