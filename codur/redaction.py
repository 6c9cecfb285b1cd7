"""Secrets, and keeping them out of everything Codur shows, writes or sends: the one place.

A secret is a value that could be one (`maskable`: at least MIN_SECRET_LEN characters and
not a plain word) and is
- held by an environment variable whose name says so (`is_secret_name`), or named by a
  profile's `api_key_env`;
- the password of a URL with credentials (`scheme://user:PASSWORD@host`), in any value;
- in a workspace's `.env` file (`dotenv_secrets`): held by a secret-named variable, or a
  URL's password (a `.env` comes with the folder: where a masked value stands in the
  diff of a run, the summary says so, and `codur diff` shows it as it is);
- a URL's password in any config value (`codur.config.loader`).
A value is never a secret by its shape alone (an app's name or version is no secret), and
a plain word never is (a hostile `.env` could blank it everywhere).

`SECRETS` is the process's set: the environment's secrets (read when first needed) and
every one Codur learns later (a model's key as it is read, a workspace's `.env` values).
Every `Redactor` replaces all of them with '***', so a line on the terminal, the debug
log, a recording, the memory file and a program's output for the model hold none.
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

MIN_SECRET_LEN = 8
"""Shorter values are never redacted: they would mask ordinary words."""
_PLAIN_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+")
"""Letters only, in one case or capitalized (`subprocess`, `Release`, `TRUE`): a word."""
MASK = "***"

_SECRET_PART = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
"""Anywhere in a name: API_KEY, APIKEY, GITHUB_TOKEN, DB_PASSWORD, GOOGLE_CREDENTIALS."""
_SECRET_WORDS = {"PAT", "PASS", "PWD", "AUTH", "DSN", "COOKIE", "PRIVATE", "CREDS"}
"""A whole word of a name (split at `_`, `-`, `.`): GH_PAT, DB_PASS, SENTRY_DSN."""
_NOT_SECRET = {"PWD", "OLDPWD"}
"""The shell's working folders, though their names hold a secret word."""
_SECRET_FIELD = re.compile(r"(api_key|apikey|authorization|password|secret|token)$", re.I)
"""Mapping keys whose values are always masked (a request's `Authorization` header)."""
URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@]*:([^\s/?#@]+)@")
"""`scheme://user:password@host`: group 1 is the password."""
DOTENV_MAX_BYTES = 256 * 1024
"""Larger `.env` files are not read (no real one is this big)."""


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (API_KEY, GH_PAT...)."""
    if name.upper() in _NOT_SECRET:
        return False
    words = {w.upper() for w in re.split(r"[_.\-]", name)}
    return bool(_SECRET_PART.search(name)) or bool(words & _SECRET_WORDS)


def maskable(value: str) -> bool:
    """Whether `value` could be a secret: MIN_SECRET_LEN characters or more and not a plain
    word (a digit, a symbol or a capital inside it), so masking it hides no common word."""
    return len(value) >= MIN_SECRET_LEN and not _PLAIN_WORD.fullmatch(value)


def url_passwords(value: str) -> list[str]:
    """The passwords of the URLs with credentials in `value`, each with the HTTP Basic
    credentials it is sent as (base64 of `user:password`, which a server's 401 may echo)."""
    found = []
    for m in URL_PASSWORD.finditer(value):
        if len(m[1]) >= MIN_SECRET_LEN:
            user = unquote(m[0].split("://", 1)[1][: -len(m[1]) - 2])
            password = unquote(m[1])  # as sent: `p%40ss` is `p@ss` on the wire
            basic = base64.b64encode(f"{user}:{password}".encode()).decode()
            found += list(dict.fromkeys([m[1], password, basic]))
    return found


def password_hidden(url: str) -> str:
    """`url` with the password of its credentials (`user:password@`) shown as `***`: for
    messages that may be kept (a run's checkpoints hold its errors)."""
    return URL_PASSWORD.sub(lambda m: m[0][: m.start(1) - m.start()] + "***@", url)


def secret_values(environ: Mapping[str, str], extra_names: Iterable[str] = ()) -> set[str]:
    """The secrets of `environ`: values of secret-named variables and of `extra_names`
    (profiles' `api_key_env`), and URL passwords in any value."""
    names = {n for n in environ if is_secret_name(n)} | set(extra_names)
    found = {environ[n] for n in names if n in environ}
    for value in environ.values():
        found.update(url_passwords(value))
    return {v for v in found if maskable(v)}


def dotenv_files(root: Path) -> list[Path]:
    """The `.env` and `.env.*` files in `root` and in its folders one level down (hidden
    folders left out), regular files only."""
    found: list[Path] = []
    folders = [root]
    # not codur.tools.walk: a .env file is usually gitignored, and its secrets are masked too
    try:
        folders += sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    for folder in folders:
        try:
            names = sorted(p for p in folder.iterdir() if _is_dotenv(p.name))
        except OSError:
            continue
        found += [p for p in names if p.is_file()]
    return found


def _is_dotenv(name: str) -> bool:
    return name == ".env" or name.startswith(".env.")


def dotenv_secrets(root: Path) -> set[str]:
    """The secrets in the `.env` files of the workspace at `root` (see the module text)."""
    found: set[str] = set()
    for path in dotenv_files(root):
        try:
            if path.stat().st_size > DOTENV_MAX_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for name, value in _assignments(text):
            found.update(url_passwords(value))
            if is_secret_name(name):
                found.add(value)
    return {v for v in found if maskable(v)}


def _assignments(text: str) -> Iterable[tuple[str, str]]:
    """`NAME=value` lines of a `.env` file (`export` allowed, quotes and comments removed)."""
    for line in text.splitlines():
        line = line.strip().removeprefix("export ").strip()
        name, sep, value = line.partition("=")
        if not sep or line.startswith("#") or not name.strip():
            continue
        value = value.strip()
        if value[:1] in ("'", '"') and value.endswith(value[0]) and len(value) > 1:
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].strip()
        yield name.strip(), value


def _forms(value: str) -> set[str]:
    """`value` as it may show up: itself, without the whitespace at its ends, and with its
    control characters escaped (a key with a newline in an error's `b'Bearer ...\\n'`)."""
    escaped = value.encode("unicode_escape").decode("ascii")
    return {value, value.strip(), escaped}


class Secrets:
    """The process's secrets (thread-safe; values are only ever added)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._environ_read = False
        self.version = 0
        """Bumped whenever a value is added (Redactors rebuild their list then)."""

    def add(self, values: Iterable[str]) -> None:
        new = {form for v in values for form in _forms(v) if maskable(form)}
        with self._lock:
            if not new <= self._values:
                self._values |= new
                self.version += 1

    def values(self) -> set[str]:
        """Every secret known (the environment's are read the first time)."""
        if not self._environ_read:
            self._environ_read = True
            self.add(secret_values(os.environ))
        with self._lock:
            return set(self._values)


SECRETS = Secrets()


def remember(values: Iterable[str]) -> None:
    """Add secrets Codur has learned (a model's key, a `.env` file's values) to `SECRETS`."""
    SECRETS.add(values)


class Redactor:
    """Replaces every secret (its own, the environment's and `SECRETS`) with '***', and the
    values of secret-named fields of a mapping."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._own = {s for s in secrets if maskable(s)} | secret_values(os.environ)
        self._version = -1
        self._secrets: list[str] = []

    @property
    def secrets(self) -> list[str]:
        """What is masked, longest first (so a secret holding another goes whole)."""
        if self._version != SECRETS.version or not self._secrets:
            version = SECRETS.version
            every = self._own | SECRETS.values()
            self._secrets = sorted(every, key=len, reverse=True)
            self._version = version
        return self._secrets

    def text(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def strings(self, value: Any) -> Any:
        """`value` (JSON-like) with every string in it masked, and nothing else changed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {k: self.strings(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.strings(v) for v in value]
        return value

    def __call__(self, value: Any, limit: int | None = None) -> Any:
        if isinstance(value, str):
            value = self.text(value)
            if limit is not None and len(value) > limit:
                value = f"{value[:limit]}... [{len(value) - limit} more chars]"
            return value
        if isinstance(value, Mapping):
            return {
                str(k): MASK if _SECRET_FIELD.search(str(k)) and v else self(v, limit)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple | set):
            return [self(v, limit) for v in value]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self(str(value), limit)


def redact(text: str) -> str:
    """`text` with every known secret masked."""
    return Redactor().text(text)
