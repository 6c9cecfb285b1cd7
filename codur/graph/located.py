"""What the coder is shown of a repository: the files, which of them only in part, and a
map of the related code not shown (`context` config).

Files the task names are shown; a task that names none (`codur "test_x fails: fix it"`)
gets the files of the code found for it (`codur.agents.locate`), at most
`context.max_files`. A Python file of more than `context.whole_file_lines` lines is
shown in part when code is found in it: the `context.max_functions` best found
functions, with what surrounds them (`codur.edits.excerpt`); a function itself longer
than `context.whole_file_lines` is not shown whole. The next-ranked ones (and such a
function) are listed by signature, `path:line def name(args)`, at most
`context.map_entries`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from codur.agents.locate import Found, Locator
from codur.edits.excerpt import signatures
from codur.errors import WorkspaceError
from codur.session import Session
from codur.tools.code import code_index, python_files
from codur.verify.result import VerificationResult
from codur.verify.target import is_test


@dataclass
class Shown:
    """The files for the prompt and how each is shown."""

    files: dict[str, str]
    """Path -> the file's whole text (a reply's edits merge into it)."""
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Files shown in part: path -> the definitions shown whole."""
    related: tuple[str, ...] = ()
    """The map: `path:line signature` of the next-ranked definitions not shown."""
    located: list[Found] = field(default_factory=list)
    """The functions found, best first (for the `context.located` event)."""


def lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def assemble(
    session: Session,
    task: str,
    verdict: VerificationResult | None,
    files: dict[str, str],
    read: Callable[[str], str | None],
    add_files: bool,
) -> Shown:
    """How to show `files` (path -> text) for `task` and the check's `verdict`;
    `add_files`: the task names no file, so the files of the code found are added;
    `read(path)`: a file's text for the prompt (None: not to be shown)."""
    config = session.config.context
    shown = Shown(dict(files))
    failing = verdict is not None and not verdict.passed
    if not _big(shown.files, config.whole_file_lines) and not (add_files and failing):
        return shown
    ranked = _locator(session).rank(task, verdict if failing else None)
    fits = [f for f in ranked if f.end - f.line < config.whole_file_lines]  # else: the map
    if add_files and failing:
        for found in fits[: config.max_functions]:
            if found.path in shown.files or len(shown.files) >= config.max_files:
                continue
            if (text := read(found.path)) is not None:
                shown.files[found.path] = text
    chosen = [f for f in fits if f.path in shown.files][: config.max_functions]
    big = _big(shown.files, config.whole_file_lines)
    for path in big:
        names = tuple(f.name for f in chosen if f.path == path)
        # a named file where only a function too long to show was found: that one, in
        # part (build_messages leaves the file out if it does not fit), not all of it
        names = names or tuple(f.name for f in ranked if f.path == path)[:1]
        if names:
            shown.parts[path] = names
    whole = set(shown.files) - set(shown.parts)
    rest = [f for f in ranked if f not in chosen and f.path not in whole]
    shown.related = _map(rest[: config.map_entries], shown.files, read)
    shown.located = chosen
    return shown


def _big(files: dict[str, str], limit: int) -> list[str]:
    return [p for p, text in files.items() if p.endswith(".py") and lines(text) > limit]


def _locator(session: Session) -> Locator:
    """The ranking over the workspace's code index, brought up to date with the files
    as they are now (an attempt may have moved every line)."""
    ctx = session.tool_context()
    index = code_index(ctx)
    index.update(python_files(ctx))
    scope = session.scope
    return Locator(index, scope.protected_oracle if scope is not None else is_test, _text(session))


def _map(
    found: list[Found], files: dict[str, str], read: Callable[[str], str | None]
) -> tuple[str, ...]:
    """`path:line signature` for each of `found`, from the files as they are now."""
    texts: dict[str, dict[str, tuple[int, str]]] = {}
    out = []
    for item in found:
        if item.path not in texts:
            text = files.get(item.path) or read(item.path)
            texts[item.path] = signatures(text) if text is not None else {}
        where = texts[item.path].get(item.name)
        if where is not None:
            out.append(f"{item.path}:{where[0]} {where[1]}")
    return tuple(out)


def _text(session: Session) -> Callable[[str], str | None]:
    """A code file's text as it is now (None: unreadable)."""

    def read(path: str) -> str | None:
        try:
            return session.ws.read_text(path)
        except WorkspaceError:
            return None

    return read
