"""`codur chat`: a session of tasks with memory (repl.py): each task is told what the
session's earlier tasks did and which files they read."""
