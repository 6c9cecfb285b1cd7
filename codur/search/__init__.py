"""Code search over a workspace: Python files cut into chunks (functions, classes, module
heads) with `path:line` ranges, ranked by BM25 (and any further ranking, fused by
reciprocal rank), a static call graph from the AST, and an index kept on disk that is
updated by file hash.

This package reads the files it is given and knows nothing of tools, sessions or models:
`codur.tools.code` walks the workspace (honouring .gitignore, ignore names and secrets)
and hands the files in.
"""
