"""The benchmark's packages (packages.yaml) and their cached sources and venvs.

The cache folder (default ~/.cache/codur/realrepo, `--cache` or $CODUR_REALREPO_CACHE)
holds sdists/, src/<name>/ (the unpacked sdist) and venvs/<name>/ (the test dependencies,
never the package). A working copy runs in a small venv layered on the package's venv
(`layered_env`), with the copy's own import root on its path; nothing else is shared.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
PACKAGES_FILE = HERE / "packages.yaml"
NICE = ["nice", "-n", "19"] if shutil.which("nice") else []


def default_cache() -> Path:
    env = os.environ.get("CODUR_REALREPO_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "codur" / "realrepo"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    root: str
    """The folder (relative to the sources) that goes on sys.path."""
    sources: tuple[str, ...]
    """The package's code: folders or files, relative to the sources; bugs go here."""
    tests: tuple[str, ...]
    """What the suite runs (pytest arguments, relative to the sources)."""
    deps: tuple[str, ...]
    """Pinned test dependencies."""

    def src(self, cache: Path) -> Path:
        return cache / "src" / self.name

    def venv(self, cache: Path) -> Path:
        return cache / "venvs" / self.name


def load_packages(path: Path = PACKAGES_FILE) -> dict[str, Package]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {
        p["name"]: Package(
            name=p["name"],
            version=str(p["version"]),
            root=p["root"],
            sources=tuple(p["sources"]),
            tests=tuple(p["tests"]),
            deps=tuple(p["deps"]),
        )
        for p in data["packages"]
    }


def _pip(python: Path, *args: str) -> None:
    subprocess.run([*NICE, str(python), "-m", "pip", "-q", *args], check=True)


def _unpack(archive: Path, dest: Path) -> None:
    """The sdist's single top folder becomes `dest`."""
    staging = dest.with_name(dest.name + ".unpacking")
    shutil.rmtree(staging, ignore_errors=True)
    with tarfile.open(archive) as tar:
        tar.extractall(staging, filter="data")
    (top,) = list(staging.iterdir())
    top.rename(dest)
    staging.rmdir()


def prepare(package: Package, cache: Path) -> None:
    """Download and unpack the sdist and build the venv, each once (kept in the cache)."""
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    spec = f"{package.name}=={package.version}"
    if not package.src(cache).is_dir():
        found = [p for p in sdists.iterdir() if _is_sdist_of(p.name, package)]
        if not found:
            _pip(
                Path(sys.executable),
                *("download", "--no-binary", ":all:", "--no-deps", "-d", str(sdists), spec),
            )
            found = [p for p in sdists.iterdir() if _is_sdist_of(p.name, package)]
        package.src(cache).parent.mkdir(parents=True, exist_ok=True)
        _unpack(found[0], package.src(cache))
    venv = package.venv(cache)
    if not (venv / "ready").is_file():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run(
            [*NICE, sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True
        )
        _pip(
            Path(sys.executable), "--python", str(venv / "bin" / "python"), "install", *package.deps
        )
        (venv / "ready").write_text("\n".join(package.deps) + "\n")


def _is_sdist_of(filename: str, package: Package) -> bool:
    names = {package.name, package.name.replace("-", "_")}
    return filename.endswith(".tar.gz") and any(
        filename == f"{n}-{package.version}.tar.gz" for n in names
    )


def site_packages(venv: Path) -> Path:
    (found,) = (venv / "lib").glob("python3*/site-packages")
    return found


def layered_env(package: Package, cache: Path, copy: Path, dest: Path) -> Path:
    """A venv at `dest` that sees the package venv's test dependencies and imports the
    package from `copy`; returns its python."""
    base = package.venv(cache) / "bin" / "python"
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(dest)], check=True)
    pth = site_packages(dest) / "_realrepo.pth"
    pth.write_text(
        f"{(copy / package.root).resolve()}\n"
        f"import site; site.addsitedir({str(site_packages(package.venv(cache)))!r})\n",
        encoding="utf-8",
    )
    return dest / "bin" / "python"


def copy_sources(package: Package, cache: Path, dest: Path) -> Path:
    """A clean copy of the package's sources (no caches, no build litter)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", "*.egg-info")
    shutil.copytree(package.src(cache), dest, ignore=ignore)
    return dest
