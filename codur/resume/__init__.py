"""`codur runs` and `codur resume`: this folder's runs (from the run records of
`codur.undo.records`) and continuing an interrupted one from its last checkpoint
(`codur.graph.checkpoint`)."""
