"""`codur chat`: a session of tasks with memory (repl.py; seed 002)."""
