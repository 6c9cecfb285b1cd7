"""Edit formats: reading a model's reply into file edits, and checking them before writing.

A reply may hold, whatever the profile's `edit_format` asked for:
- fenced blocks under a path (the path on the line before, in the info string, or the
  only file shown): a whole file, or for Python only some functions/classes, which are
  merged into the file by name (see `codur.edits.merge` for the rule that tells the two
  apart: the AST, not line counts);
- aider-style SEARCH/REPLACE blocks under a path.

`edit_format` ("whole_file", "search_replace", "functions") only chooses what the model
is asked for (the prompt); small models do best with whole files or functions.
`definitions` and `module_statements` give the AST line spans the merge uses.
"""

from codur.edits.base import Edit, EditError
from codur.edits.merge import merge_python
from codur.edits.parse import EDIT_FORMATS, check_syntax, parse_edits
from codur.edits.search_replace import apply_search_replace
from codur.edits.spans import Span, definitions, module_statements

__all__ = [
    "EDIT_FORMATS",
    "Edit",
    "EditError",
    "Span",
    "apply_search_replace",
    "check_syntax",
    "definitions",
    "merge_python",
    "module_statements",
    "parse_edits",
]
