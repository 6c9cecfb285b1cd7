"""The encoding of a Python source file: the one it declares (PEP 263: `# -*- coding:
latin-1 -*-` on its first line, or its second after a comment or blank first line),
UTF-8 otherwise, as Python itself reads it. Any other file Codur reads or writes is
UTF-8. A declared codec counts only when it is a plain text encoding that reads ASCII
as ASCII (latin-1, cp1252, shift_jis...): `rot13`, `hex`, `idna`, `unicode_escape` or
EBCDIC would not give back the bytes they read, so such a file is read as UTF-8."""

from __future__ import annotations

import codecs
import functools
import re
import warnings
from pathlib import Path

UTF8 = "utf-8"
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_COMMENT_OR_BLANK = re.compile(r"^[ \t\f]*(?:#.*)?$")
_ASCII = bytes(range(32, 127)) + b"\t\n\r"


@functools.lru_cache(maxsize=64)
def _usable(name: str) -> str:
    """The codec `name` as Codur uses it: itself when it is a plain text encoding that
    reads ASCII as ASCII, else UTF-8."""
    try:
        with warnings.catch_warnings():  # unicode_escape warns of `\]`
            warnings.simplefilter("ignore")
            info = codecs.lookup(name)
            plain = _ASCII.decode(info.name) == _ASCII.decode("ascii")
            plain = plain and _ASCII.decode("ascii").encode(info.name) == _ASCII
    except (LookupError, UnicodeError, ValueError, TypeError):
        return UTF8
    if not (plain and getattr(info, "_is_text_encoding", True)) or info.name == "idna":
        return UTF8
    return UTF8 if info.name in ("utf-8", "utf-8-sig") else info.name


def _declared(first_lines: list[str]) -> str:
    for line in first_lines[:2]:
        if found := _COOKIE.match(line):
            return _usable(found[1])
        if not _COMMENT_OR_BLANK.match(line):
            break
    return UTF8


def of_file(path: str, data: bytes) -> str:
    """The encoding of the file `path` whose bytes (its first lines suffice) are `data`."""
    if not path.endswith(".py") or data.startswith(codecs.BOM_UTF8):
        return UTF8
    return _declared(data[:4096].decode("latin-1").splitlines())


def of_text(path: str, text: str) -> str:
    """The encoding to write `text` at `path` in: the one its own first lines declare."""
    if not path.endswith(".py") or text.startswith("\ufeff"):
        return UTF8
    return _declared(text[:4096].splitlines())


def decode(path: str, data: bytes, errors: str = "strict") -> str:
    """The text of the file `path` whose bytes are `data`, in its encoding
    (UnicodeDecodeError when `errors` is strict and they are not)."""
    return data.decode(of_file(path, data), errors)


def label(encoding: str) -> str:
    """An encoding as messages name it (`UTF-8`, `iso8859-1`)."""
    return "UTF-8" if encoding == UTF8 else encoding


def read(path: Path) -> str:
    """The text of the file at `path`, in its encoding (OSError, UnicodeDecodeError)."""
    return decode(path.name, path.read_bytes())
