"""`codur trace`: a past run drawn as a tree from the debug log (nodes, model calls,
tool calls, verification), read leniently so any log of any Codur version shows.

logfile.py reads the log and finds the run, tree.py turns its records into a tree,
render.py decides how the tree looks (truncated or `--full`), commands.py wires them.
"""
