"""Tools the agents call: see `codur.tools.registry` (dispatch, prompts) and one module a
family (fs, search, data, python, pyast, git, mcp, web)."""
