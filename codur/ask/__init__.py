"""Ask mode: answer a question about the codebase, never editing a file.

The code index is searched for each part of the question first (retrieve). When that
covers every part, a synthesizer answers from it in one model call, citing `path:line`.
Otherwise a plan of research steps (planner), a ReAct executor per step (executor_llm <->
tool_node: the model <-> tools loop of `codur.agents.loop`, its turns cleared between
steps), the findings stored per step (aggregate), and a refinery that decides CONTINUE
or FINISH with a reason come before the synthesizer. The graph is in `codur.ask.build`.
"""
