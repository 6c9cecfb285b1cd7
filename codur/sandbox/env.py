"""The environment a program gets: Codur's own, minus anything that looks like a secret.

Removed: every profile's `api_key_env`, names that look like secrets (the rule the
redaction uses, `codur.redaction.is_secret_name`: KEY, TOKEN, SECRET, PASSWORD, PASSWD,
CREDENTIAL anywhere in the name; PAT, PASS, PWD, AUTH, DSN, COOKIE, PRIVATE, CREDS as
a word of it), any variable holding a URL with a password
(`postgres://user:PASSWORD@host`: the whole variable goes, the program sees no half
URL), the SSH agent socket, and any variable whose value holds one of the removed
secrets. Names matching `sandbox.env_allow` (globs) are kept whatever they look like.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

from codur.redaction import MIN_SECRET_LEN, is_secret_name, url_passwords

ALWAYS_REMOVED = ("SSH_AUTH_SOCK",)
"""Not secret-looking, but each grants access to keys: the SSH agent's socket."""
TAG = "_CODUR_PROGRAM"
"""Set in every program's environment (and so inherited by its descendants): the tags of
the programs it belongs to, so descendants that left the process group can be found."""


def scrubbed(
    environ: Mapping[str, str], key_names: Iterable[str] = (), allow: Iterable[str] = ()
) -> tuple[dict[str, str], list[str]]:
    """`environ` without secrets; also the names removed (sorted, for the log)."""
    allowed = list(allow)
    secret_names = {n for n in environ if is_secret_name(n) or url_passwords(environ[n])}
    secret_names |= set(key_names) | set(ALWAYS_REMOVED)

    def kept(name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in allowed)

    removed = {n for n in secret_names if n in environ and not kept(n)}
    values = [environ[n] for n in removed if len(environ[n]) >= MIN_SECRET_LEN]
    values += [p for n in removed for p in url_passwords(environ[n])]
    for name, value in environ.items():
        if name not in removed and not kept(name) and any(v in value for v in values):
            removed.add(name)  # the same secret under another name
    return {k: v for k, v in environ.items() if k not in removed}, sorted(removed)
