"""The oracle check: the files the checks judge by are as they were at the start."""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel

from codur.scope import site_hooks
from codur.scope.compiled import planted
from codur.scope.oracle import created
from codur.tools.context import ToolContext
from codur.verify.evidence import Evidence


class OracleCheck(BaseModel):
    """The files checks judge by are as they were at the start of the run (sha256 each;
    None: too large to capture, so it must only still exist), and no file pytest loads by
    name (a conftest.py, a pytest.ini, a site hook) was created. Run last, after the
    programs, so a program that rewrites a test or an expected file is caught."""

    kind: Literal["oracle"] = "oracle"
    files: dict[str, str | None]
    allowed: list[str] = []
    """Oracle files the run may change or create (the task asked, or --allow-edit)."""
    present: list[str] = []
    """Files pytest loads by name that were there when the run started (not created)."""
    compiled: dict[str, str] = {}
    """The `__pycache__` modules when the run started (`codur.scope.compiled`)."""
    site_dirs: list[str] = []
    """The site-packages folders of the project's Python."""
    site_hooks: dict[str, str] = {}
    """The site hooks there when the run started (`codur.scope.site_hooks`; sha256 each):
    one created, changed or deleted since fails the check."""

    def run(self, ctx: ToolContext) -> Evidence:
        known = [*self.present, *self.files, *self.allowed]
        changed = [f"{path} was created" for path in created(ctx.ws.root, known)]
        changed += [f"{path} was planted" for path in planted(ctx.ws.root, self.compiled)]
        site = site_hooks.changes(self.site_hooks, self.site_dirs)
        changed += [f"{path} was {how}" for path, how in site.items()]
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
                "output, tests, their data and helpers, and pytest's configuration and "
                "plugins, and the site hooks of the project's Python (*.pth, "
                "sitecustomize.py) must stay as they are; a program must not write them, "
                "and edits to them do not count."
            ),
            fingerprint=f"oracle|{text}",
        )
