"""The encoding of a Python source file: the one it declares (PEP 263: `# -*- coding:
latin-1 -*-` in its first two lines), UTF-8 otherwise, as Python itself reads it. Any
other file Codur reads or writes is UTF-8."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable

UTF8 = "utf-8"


def _declared(readline: Callable[[], bytes]) -> str:
    try:
        name, _ = tokenize.detect_encoding(readline)
    except SyntaxError:  # a cookie naming no codec: Python would not run it either
        return UTF8
    return UTF8 if name in (UTF8, "utf-8-sig") else name


def of_file(path: str, data: bytes) -> str:
    """The encoding of the file `path` whose bytes (its first lines suffice) are `data`."""
    return _declared(io.BytesIO(data).readline) if path.endswith(".py") else UTF8


def of_text(path: str, text: str) -> str:
    """The encoding to write `text` at `path` in: the one its own first lines declare."""
    return of_file(path, text[:4096].encode(UTF8, errors="replace"))


def decode(path: str, data: bytes, errors: str = "strict") -> str:
    """The text of the file `path` whose bytes are `data`, in its encoding
    (UnicodeDecodeError when `errors` is strict and they are not)."""
    return data.decode(of_file(path, data[:4096]), errors)


def label(encoding: str) -> str:
    """An encoding as messages name it (`UTF-8`, `iso-8859-1`)."""
    return "UTF-8" if encoding == UTF8 else encoding
