"""The project's Python: the interpreter Codur runs the project's programs and tests with.

Found in this order (`locate`), the first that exists wins:

1. `tools.python` (a path, relative to the folder, or a name on PATH);
2. `$VIRTUAL_ENV` (an activated virtualenv);
3. a `.venv/` or `venv/` in the folder or its parents, up to the repository's top folder
   (the folder itself when it is in no git repository);
4. a project manager's environment on disk: uv's `UV_PROJECT_ENVIRONMENT`, Hatch's
   configured or `.hatch/default`, Poetry's in its cache (no tool is run);
5. `python3` on PATH;
6. the Python running Codur, with a warning.

`probe` asks the interpreter once (one short subprocess in the folder, in the run's
sandbox) for its version, its site-packages folders and whether pytest is importable
there (found on its path, without importing it: the probe stays cheap): an
`Interpreter`.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from codur.errors import ConfigError
from codur.process import run_process
from codur.project.envs import VENV_NAMES, hatch_env, poetry_env, python_in, up_to_root, uv_env
from codur.sandbox import Sandbox

OWN = "codur"
"""The `source` of Codur's own interpreter, the last resort."""
PROBE_OUTPUT_BYTES = 100_000
"""Output read from the probe; it prints one short JSON line."""
_PROBE = """\
import json, site, sys, sysconfig
if sys.version_info[0] < 3:
    print('CODUR-PROBE {"python2": "%d.%d.%d"}' % tuple(sys.version_info[:3]))
    sys.exit(0)
from importlib import util
try:
    from importlib import metadata
except ImportError:  # before Python 3.8
    metadata = None
paths = sysconfig.get_paths()
dirs = list(getattr(site, "getsitepackages", lambda: [])()) + [paths["purelib"], paths["platlib"]]
info = {"version": "%d.%d.%d" % sys.version_info[:3], "site": sorted(set(dirs))}
info["executable"] = sys.executable
try:
    found = util.find_spec("pytest")
except (ImportError, ValueError) as exc:
    found, info["pytest_error"] = None, "%s: %s" % (type(exc).__name__, exc)
info["pip"] = util.find_spec("pip") is not None
if found is None:
    info["pytest"] = None
else:
    try:
        info["pytest"] = metadata.version("pytest")
    except (AttributeError, metadata.PackageNotFoundError if metadata else ImportError):
        info["pytest"] = "(version unknown)"
print("CODUR-PROBE " + json.dumps(info))
"""


@dataclass(frozen=True)
class Located:
    """An interpreter found on disk: its path, which rule found it (`source`: the key
    `tools.python`, `VIRTUAL_ENV`, `venv`, `uv`, `hatch`, `poetry`, `path` or `codur`),
    and where, for people."""

    path: str
    source: str
    where: str
    passed_over: str = ""
    """An environment the user pointed at that holds no Python (said as a warning)."""


@dataclass(frozen=True)
class Interpreter:
    """The project's Python as probed: path, where it came from, version, pytest."""

    path: str
    source: str
    where: str
    version: str = ""
    """Its version (empty: the probe failed; `problem` says why)."""
    pytest: str | None = None
    """pytest's version when it is importable there (None: it is not)."""
    pip: bool = True
    """pip is importable there (a venv made `--without-pip` has none)."""
    site_packages: tuple[str, ...] = ()
    """Its site-packages folders: the `.pth` files and site hooks there load with every
    program it runs."""
    problem: str = ""
    """Why the probe failed, or why pytest does not import (empty: neither)."""
    passed_over: str = ""
    """An environment the user pointed at that holds no Python (`Located.passed_over`)."""

    @property
    def line(self) -> str:
        """One line for people: path, version, pytest, where it came from."""
        version = f"Python {self.version}" if self.version else "not runnable"
        tests = f"pytest {self.pytest}" if self.pytest else "no pytest"
        return f"{self.path} ({version}, {tests}; {self.where})"

    @property
    def install_pytest(self) -> str:
        """The command that installs pytest for it (pip first, where it has none)."""
        python = shlex.quote(self.path)
        pip = "" if self.pip else f"{python} -m ensurepip && "
        return f"{pip}{python} -m pip install pytest"

    @property
    def warning(self) -> str:
        """What to say when it is Codur's own, or an environment set was passed over
        (empty otherwise)."""
        if self.source != OWN:
            return self.passed_over
        own = (
            "no project Python found (tools.python, $VIRTUAL_ENV, .venv or venv, a uv, Hatch "
            f"or Poetry environment, python3 on PATH): programs and tests run with Codur's "
            f"own, {self.path}"
        )
        return f"{self.passed_over}; {own}" if self.passed_over else own

    def activation(self, environ: Mapping[str, str]) -> dict[str, str]:
        """What activating its virtualenv sets for the programs it runs, so that the
        `python`, `pytest` or `pip` a test command or a script starts by name is the
        project's too (`make test`, `sh -c "pytest"`); nothing for an interpreter that is
        no virtualenv's, or Codur's own."""
        scripts = Path(self.path).parent
        if self.source == OWN or not (scripts.parent / "pyvenv.cfg").is_file():
            return {}
        path = os.pathsep.join([str(scripts), environ.get("PATH", os.defpath)])
        return {"VIRTUAL_ENV": str(scripts.parent), "PATH": path}

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "site_packages": list(self.site_packages)}


def locate(
    folder: Path, configured: str | None, environ: Mapping[str, str] | None = None
) -> Located:
    """The project's interpreter for `folder` (see the module docstring); ConfigError
    when `tools.python` names none."""
    environ = os.environ if environ is None else environ
    if configured:
        return Located(_configured(folder, configured, environ), "tools.python", "tools.python")
    found, passed_over = _searched(folder, environ)
    return replace(found, passed_over=passed_over)


def _searched(folder: Path, environ: Mapping[str, str]) -> tuple[Located, str]:
    """The first interpreter of the order, and what was passed over on the way."""
    passed_over = ""
    if environ.get("VIRTUAL_ENV"):
        env = Path(environ["VIRTUAL_ENV"]).expanduser()
        if (found := python_in(env)) is not None:
            located = Located(str(found), "VIRTUAL_ENV", f"$VIRTUAL_ENV={env}")
            return located, _own_venv_passed_over(folder, env)
        passed_over = f"$VIRTUAL_ENV={env} holds no Python (bin/python): passed over"
    for parent in up_to_root(folder):
        for name in VENV_NAMES:
            if (found := python_in(parent / name)) is not None:
                return Located(str(found), "venv", f"{name} in {parent}"), passed_over
            if (parent / name / "pyvenv.cfg").is_file() and not passed_over:
                passed_over = (
                    f"{name} in {parent} holds no Python that runs (bin/python missing, not "
                    "executable, or a link to a Python since removed): passed over; "
                    f"remake it (python3 -m venv --clear {parent / name}) or set tools.python"
                )
    managers: list[tuple[str, Callable[[Path, Mapping[str, str]], list[Path]]]] = [
        ("uv", uv_env),
        ("hatch", hatch_env),
        ("poetry", poetry_env),
    ]
    for name, envs in managers:
        for env in envs(folder, environ):
            if (found := python_in(env)) is not None:
                return Located(str(found), name, f"{name} environment {env}"), passed_over
    on_path = shutil.which("python3", path=environ.get("PATH", os.defpath))
    if on_path is not None:
        return Located(on_path, "path", "python3 on PATH"), passed_over
    return Located(sys.executable, OWN, "Codur's own"), passed_over


def _own_venv_passed_over(folder: Path, active: Path) -> str:
    """A line when the folder has a virtualenv of its own that the activated one (another
    project's, perhaps) outranks; empty when it has none or it is the active one."""
    for parent in up_to_root(folder):
        for name in VENV_NAMES:
            own = parent / name
            if python_in(own) is None:
                continue
            if own.resolve() == active.resolve():  # the nearest is the activated one
                return ""
            return (
                f"{name} in {parent} passed over for the activated $VIRTUAL_ENV={active} "
                f"(set tools.python, or deactivate it, to use {name} in {parent})"
            )
    return ""


def _configured(folder: Path, value: str, environ: Mapping[str, str]) -> str:
    """`tools.python` as a path to an interpreter: a path (relative to the folder) or a
    name looked up on PATH."""
    if os.sep in value or (os.altsep and os.altsep in value):
        path = folder / Path(value).expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    elif (found := shutil.which(value, path=environ.get("PATH", os.defpath))) is not None:
        return found
    raise ConfigError(
        f"key 'tools.python': {value} is no interpreter here (not found or not executable)",
        key=("tools", "python"),
    )


def environment_inside(folder: Path, configured: str | None) -> Path | None:
    """The virtualenv of the project's interpreter (the folder holding `pyvenv.cfg` above
    its `bin/`), resolved, when it lies inside `folder`: the run's programs could rewrite
    what every check imports (None: none, elsewhere, or `tools.python` names none, which
    `find_interpreter` reports)."""
    try:
        located = locate(folder, configured)
    except ConfigError:
        return None  # said where the interpreter is found, before anything runs
    env = Path(located.path).parent.parent
    if not (env / "pyvenv.cfg").is_file():
        return None
    env, top = env.resolve(), folder.resolve()
    return env if env != top and env.is_relative_to(top) else None


def probe(located: Located, folder: Path, sandbox: Sandbox, timeout_s: float) -> Interpreter:
    """Ask the interpreter, in `folder` (a pyenv shim picks its version there), for its
    version, site-packages and pytest (one subprocess, through `sandbox`). A launcher
    in a `shims` folder (pyenv's, asdf's) is replaced by the interpreter it started; any
    other path (a wrapper script that sets the environment) is kept as given."""
    result = run_process(
        [located.path, "-c", _PROBE], folder, timeout_s, PROBE_OUTPUT_BYTES, sandbox=sandbox
    )
    base = Interpreter(located.path, located.source, located.where, passed_over=located.passed_over)
    line = next(
        (ln for ln in reversed(result.raw_stdout.splitlines()) if ln.startswith("CODUR-PROBE ")),
        None,
    )
    if line is None or not result.ok:
        said = (result.stderr.strip().splitlines() or [""])[-1]
        why = "timed out" if result.timed_out else f"exit code {result.exit_code}"
        return replace(base, problem=f"it does not run ({why}{': ' + said if said else ''})")
    try:
        info = json.loads(line.removeprefix("CODUR-PROBE "))
    except json.JSONDecodeError:
        return replace(base, problem="its answer to the probe was cut short")
    if "python2" in info:
        return replace(base, problem=f"it is Python {info['python2']}; Codur needs Python 3")
    executable = str(info.get("executable") or located.path)
    launcher = Path(located.path).parent.name == "shims"  # pyenv's, asdf's: not a wrapper
    return replace(
        base,
        path=executable if launcher and Path(executable).is_file() else located.path,
        version=str(info.get("version", "")),
        pytest=info.get("pytest"),
        pip=bool(info.get("pip", True)),
        site_packages=tuple(str(d) for d in info.get("site", [])),
        problem=str(info.get("pytest_error", "")),
    )


def find_interpreter(
    folder: Path,
    configured: str | None,
    sandbox: Sandbox,
    timeout_s: float,
    environ: Mapping[str, str] | None = None,
) -> Interpreter:
    """The project's interpreter for `folder`, located and probed."""
    return probe(locate(folder, configured, environ), folder, sandbox, timeout_s)
