"""The names check: no changed Python file is left using a name that nothing defines and
that it did not use undefined when the run found it (codur.edits.names).

A coder's reply is refused at once for such a name; a tool's write is not, since a model
editing one step at a time may write the call before the function it calls. So the
check holds the run to it before any verdict: a name still undefined fails verification
and the model reads where, whatever the tests did or did not run.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from codur.edits.names import new_undefined
from codur.errors import WorkspaceError
from codur.tools.context import ToolContext
from codur.verify.evidence import Evidence


class NamesCheck(BaseModel):
    """Each of `files` (workspace-relative) uses no name undefined but those it used
    undefined when the run found it (`files[path]`: `codur.edits.names.known_undefined`)."""

    kind: Literal["names"] = "names"
    files: dict[str, list[str]]

    def run(self, ctx: ToolContext) -> Evidence:
        found: list[str] = []
        for path, known in sorted(self.files.items()):
            try:
                text = ctx.ws.read_text(path) if ctx.ws.resolve(path).is_file() else None
            except (WorkspaceError, UnicodeDecodeError):
                continue  # gone or not text: nothing Python reads by name
            found += new_undefined(path, text, set(known)) if text is not None else []
        shown = f"no name left undefined in {len(self.files)} changed Python file(s)"
        if not found:
            return Evidence(check="names", passed=True, command=shown, summary=shown)
        text = "\n".join(found)
        return Evidence(
            check="names",
            passed=False,
            command=shown,
            summary=f"a changed file uses a name nothing defines: {found[0]}",
            feedback=(
                "The changed code uses names that nothing defines; Python raises "
                f"NameError where they run:\n{text}\nDefine or import each, or leave out "
                "what uses it."
            ),
            fingerprint=f"names|{text}",
        )
