"""The oracle check: the files the checks judge by are as they were at the start."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel

from codur.tools.context import ToolContext
from codur.verify.evidence import Evidence


class OracleCheck(BaseModel):
    """The files checks judge by are as they were at the start of the run (sha256 each;
    None: too large to capture, so it must only still exist). Run last, after the
    programs, so a program that rewrites a test or an expected file is caught."""

    kind: Literal["oracle"] = "oracle"
    files: dict[str, str | None]

    def run(self, ctx: ToolContext) -> Evidence:
        changed = []
        for path, digest in sorted(self.files.items()):
            target = ctx.ws.root / path
            if not target.is_file():
                changed.append(f"{path} was deleted")
            elif digest is not None and hashlib.sha256(target.read_bytes()).hexdigest() != digest:
                changed.append(f"{path} was changed")
        shown = f"the {len(self.files)} file(s) the checks judge by are unchanged"
        if not changed:
            return Evidence(check="oracle", passed=True, command=shown, summary=shown)
        text = "; ".join(changed)
        return Evidence(
            check="oracle",
            passed=False,
            command=shown,
            summary=f"protected files changed during the run: {text}",
            feedback=(
                f"Files the check judges by changed during the run: {text}. Expected "
                "output, tests and their data must stay as they are; a program must not "
                "write them, and edits to them do not count."
            ),
            fingerprint=f"oracle|{text}",
        )
