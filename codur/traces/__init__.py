"""`codur trace`: a past run drawn as a tree from the debug log (nodes, model calls,
tool calls, verification), read leniently so any log of any Codur version shows.

logfile.py reads the log and finds the run, tree.py turns its records into a tree of
`item.Item`, render.py (and calls.py, for model and tool calls) decides how it looks
(cut to a line, or `--full`), commands.py wires them; `IO.tree` draws it.
"""
