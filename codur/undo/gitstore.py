"""Snapshots in a git repo: commits of the working tree under `refs/codur/runs/<run id>`.

`git add -A` runs with a private index (GIT_INDEX_FILE, a copy of the user's index so
git's stat cache keeps it fast), then `write-tree` and `commit-tree`; the commit is kept
by a ref outside refs/heads. The user's branch, index, stash and HEAD are never touched;
the only trace is the ref (pruned with the run) and the objects it keeps. Untracked files
are included, ignored ones are not (as `git stash -u`); content goes through the repo's
filters, and modes are git's (executable or not, symlink), as a checkout restores them.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from hashlib import sha1
from pathlib import Path

from codur.sandbox import Sandbox
from codur.sandbox.repository import Repository, repository
from codur.undo.gitrun import IDENTITY, SETTINGS, copy_new, run_git, worth_copying
from codur.undo.nofollow import Refused, plain_parts
from codur.undo.store import SnapshotError
from codur.undo.tree import FOLDER, Entry, Excluded, Taken, Tree, empty_folders, over_cap

REF = "refs/codur/runs/"
ENV_CONFIGS = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM")
"""Variables naming config files git reads instead of the usual ones."""
FOLDERS = "Codur-Empty-Folders: "
BATCH = 1000
"""Saved copies read by one `git cat-file --batch` (each call has the git timeout)."""
"""The line of a snapshot commit's message naming its empty folders (a JSON list)."""


def _glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


@dataclass
class GitStore:
    git: str
    top: Path
    """The repository's top folder (git runs there; its paths are relative to it)."""
    prefix: str
    """The workspace relative to `top`: "" or "sub/dir/"."""
    user_index: Path
    index_dir: Path
    """Where the private indexes live (the user state folder)."""
    excluded: Excluded
    cap_bytes: int
    timeout_s: float
    box: Sandbox | None = None
    """How git runs: confined like the run's programs (None: not), writing only its top
    folder, the repository's git folders and the private indexes; the repository's
    filters are programs, and a program of the model's may have written its config."""
    repo: Repository | None = None
    """The repository as vouched for when the store was opened: every git command is
    pinned to it (GIT_DIR, GIT_WORK_TREE), so a `.git` rewritten since is not followed."""
    kind: str = "git"

    @classmethod
    def open(
        cls, root: Path, index_dir: Path, excluded: Excluded, cap_bytes: int, timeout_s: float,
        box: Sandbox | None = None,
    ) -> GitStore | None:  # fmt: skip
        """The store for a workspace inside a git work tree (None: not in one that git's
        records vouch for, git is missing, or the workspace itself is ignored by the repo);
        `box`: how its git runs (`GitStore.box`); the repository it vouched for when the
        run began (`Sandbox.repository`) is taken as found, else it is looked up here, so
        `box` must be the sandbox of a run in `root` (or have no repository)."""
        git = shutil.which("git")
        if git is None:
            return None
        vouched = box.repository if box is not None else None
        vouched = vouched or repository(root, timeout_s)  # not a `.git` naming another one
        if vouched is None:
            return None
        try:
            inside = root.resolve().relative_to(vouched.top)
        except ValueError:
            return None
        prefix = "" if inside == Path() else f"{inside.as_posix()}/"
        store = cls(
            git, vouched.top, prefix, vouched.git_dir / "index", index_dir, excluded, cap_bytes,
            timeout_s, box, vouched,
        )  # fmt: skip
        if prefix and store._git("check-ignore", "-q", "--", prefix, check=False)[0] == 0:
            return None  # an ignored folder: git would snapshot nothing
        return store

    # --- running git ------------------------------------------------------------------

    def _git(
        self, *args: str, env: dict[str, str] | None = None, stdin: bytes | None = None,
        check: bool = True,
    ) -> tuple[int, bytes]:  # fmt: skip
        command = [self.git, *(part for s in SETTINGS for part in ("-c", s)), *args]
        index = env.get("GIT_INDEX_FILE") if env else None  # its own folder, nothing else
        stores = self.repo.stores if self.repo is not None else []
        writable = (*stores, *([Path(index).parent] if index else []))
        env = {**(self.repo.env if self.repo is not None else {}), **(env or {})}
        run = run_git(command, self.top, self.timeout_s, args[0], env, stdin, self.box, writable)
        if check and run.returncode != 0:
            error = run.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SnapshotError(f"git {args[0]} failed: {error[-1] if error else run.returncode}")
        return run.returncode, run.stdout

    def _env(self, index: Path) -> dict[str, str]:
        return {**IDENTITY, "GIT_INDEX_FILE": str(index)}

    def _index(self, name: str) -> Path:
        """The private index of snapshot `name`, alone in its folder (what a confined
        git may write of Codur's state)."""
        return self.index_dir / name / "index"

    def _spec(self) -> list[str]:
        """The workspace, minus what no snapshot holds (pathspecs for git)."""
        base = _glob_escape(self.prefix)
        specs = [f":(literal){self.prefix}" if self.prefix else "."]
        for name in sorted(self.excluded.names):
            name = _glob_escape(name)
            specs += [f":(exclude,glob){base}**/{name}", f":(exclude,glob){base}**/{name}/**"]
        paths = self._not_ignored(sorted(self.excluded.paths))
        specs += [f":(exclude,literal){self.prefix}{p}" for p in paths]
        return specs

    def _not_ignored(self, paths: list[str]) -> list[str]:
        """Of `paths`, those the repository does not ignore. Only they need excluding, and
        only they may be: `git add` fails on a pathspec naming an ignored file, even one
        that excludes it (a `.gitignore` with `*.log` and Codur's debug log)."""
        if not paths:
            return []
        listed = b"\0".join(os.fsencode(self.prefix + p) for p in paths) + b"\0"
        code, out = self._git("check-ignore", "-z", "--stdin", stdin=listed, check=False)
        if code not in (0, 1):  # 1: none is ignored
            raise SnapshotError(f"git check-ignore failed: exit code {code}")
        ignored = {os.fsdecode(raw).removeprefix(self.prefix) for raw in out.split(b"\0")}
        return [p for p in paths if p not in ignored]

    # --- the Store interface ----------------------------------------------------------

    def take(self, name: str, parent: str | None = None) -> Taken:
        index = self._index(name)
        if index.is_symlink():  # left by a program: git would write where it leads
            raise SnapshotError(f"cannot use the private index {index}: it is a link")
        if not os.path.lexists(index):
            index.parent.mkdir(parents=True, exist_ok=True)
            if worth_copying(self.user_index, self.cap_bytes):  # its stat cache spares
                copy_new(self.user_index, index)  # git re-reading every file
        env = self._env(index)
        spec = self._spec()
        skipped = over_cap(self._new_files(env, spec), self.cap_bytes)
        spec += [f":(exclude,literal){self.prefix}{p}" for p, _ in skipped]
        self._git(
            "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul",
            env=env, stdin=b"\0".join(os.fsencode(s) for s in spec),
        )  # fmt: skip
        tree = self._git("write-tree", env=env)[1].decode().strip()
        files = self._files(tree)
        left = [*files, *(p for p, _ in skipped)]
        folders = empty_folders(self._fileless(env, spec), left)
        message = f"codur run {name}" + (" (end)" if parent else " (start)")
        if folders:  # a git tree holds no empty folder: the message names them
            message += f"\n\n{FOLDERS}{json.dumps(sorted(folders))}"
        parents = ["-p", parent] if parent else []
        commit = self._git("commit-tree", *parents, "-m", message, "--no-gpg-sign", tree, env=env)
        snap = commit[1].decode().strip()
        return Taken(snap, {**files, **folders}, skipped)

    def _fileless(self, env: dict[str, str], spec: list[str]) -> list[str]:
        """The folders of the workspace holding no file the private index holds (empty, or
        with only ignored or left-out files), the folders in them included."""
        args = ["ls-files", "-z", "-o", "--directory", "--exclude-standard", "--", *spec]
        found = []
        for raw in self._git(*args, env=env)[1].split(b"\0"):
            path = os.fsdecode(raw)
            if not path.endswith("/"):
                continue  # a file left out (over the size cap)
            top = path.rstrip("/").removeprefix(self.prefix)
            found.append(top)
            # not codur.tools.walk: every folder git reports counts, the snapshot's exclusions apart
            for folder, dirs, _ in os.walk(self.top / path):
                base = Path(folder).relative_to(self.top / self.prefix).as_posix()
                dirs[:] = [
                    d for d in dirs
                    if not self.excluded(f"{base}/{d}") and not (Path(folder) / d).is_symlink()
                ]  # fmt: skip
                found += [f"{base}/{d}" for d in dirs]
        return found

    def _new_files(self, env: dict[str, str], spec: list[str]) -> list[tuple[str, int]]:
        """Untracked and modified files (their content is not stored yet), with sizes."""
        out = self._git("ls-files", "-z", "-m", "-o", "--exclude-standard", "--", *spec, env=env)
        found = {}
        for raw in out[1].split(b"\0"):
            path = os.fsdecode(raw)
            if path and path not in found:
                try:
                    found[path] = (self.top / path).lstat().st_size
                except OSError:
                    continue  # deleted (listed as modified): nothing to store
        return [(p.removeprefix(self.prefix), size) for p, size in found.items()]

    def tree(self, snap: str) -> Tree:
        folders: Tree = {}
        for line in self._git("cat-file", "commit", snap)[1].decode(errors="replace").split("\n"):
            if line.startswith(FOLDERS):
                named = json.loads(line.removeprefix(FOLDERS))
                folders = {p: FOLDER for p in named if self._plain(snap, p)}
        return {**self._files(snap), **folders}

    def _plain(self, snap: str, path: str) -> bool:
        """Whether `path`, named by snapshot `snap`, is a plain workspace path to use
        (SnapshotError if not) and not left out of snapshots (False)."""
        try:
            plain_parts(path)
        except Refused:  # an index or commit a program wrote can name such a path
            raise SnapshotError(f"snapshot {snap[:12]} names {path!r}: not used") from None
        return not self.excluded(path)

    def _files(self, snap: str) -> Tree:
        """The files of a snapshot's commit or tree."""
        args = ["ls-tree", "-r", "-l", "-z", "--full-tree", snap]
        out = self._git(*args, *(["--", self.prefix] if self.prefix else []))[1]
        tree: Tree = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, raw = record.split(b"\t", 1)
            mode, kind, digest, size = meta.decode().split()
            path = os.fsdecode(raw).removeprefix(self.prefix)
            if self._plain(snap, path) and kind == "blob":
                tree[path] = Entry(int(mode, 8), digest, int(size))
        return tree

    def read(self, path: str, entry: Entry) -> bytes:
        if entry.is_folder:
            raise SnapshotError(f"{path} is a folder; it has no content")
        if entry.is_link:
            return self._git("cat-file", "blob", entry.digest)[1]
        return self._git("cat-file", "--filters", f"--path={self.prefix}{path}", entry.digest)[1]

    def read_many(self, entries: dict[str, Entry]) -> dict[str, bytes]:
        """Every plain file that no git filter or line-ending rule touches, as stored,
        from one `git cat-file --batch` (exactly what `read` would give it); the others
        (a filter, `eol`, `text`, `core.autocrlf`, a link, an odd name) one by one, as
        `read` reads them: `--batch --filters` gives the size before filtering."""
        plain = self._unfiltered([p for p, e in entries.items() if not e.is_folder])
        found = {
            p: self.read(p, e) for p, e in entries.items() if not e.is_folder and p not in plain
        }
        listed = [(p, entries[p]) for p in plain]
        for start in range(0, len(listed), BATCH):  # each git call bounded by timeout_s
            found |= self._batch(listed[start : start + BATCH])
        return found

    def _batch(self, batch: list[tuple[str, Entry]]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        out = self._git(
            "cat-file", "--batch", stdin="".join(f"{e.digest}\n" for _, e in batch).encode()
        )[1]
        at = 0
        for path, entry in batch:
            end = out.index(b"\n", at)
            head = out[at:end].split()
            if len(head) != 3 or head[0].decode() != entry.digest:  # "<oid> missing"
                raise SnapshotError(f"the saved copy of {path} is missing")
            size = int(head[2])
            found[path] = out[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return found

    def _unfiltered(self, paths: list[str]) -> set[str]:
        """Of `paths`, the plain names that git's checkout would write as stored: no
        filter, eol, text, crlf, ident or encoding attribute, and no core.autocrlf or
        core.eol=crlf (None of them then: every path is read one by one)."""
        names = [p for p in paths if p == p.strip() and not any(c in p for c in "\n\r\0")]
        if not names:
            return set()
        for key in ("core.autocrlf", "core.eol"):
            said = self._git("config", "--get", key, check=False)[1].decode().strip().lower()
            if said in ("true", "crlf"):
                return set()
        asked = ("filter", "eol", "text", "crlf", "ident", "working-tree-encoding")
        spec = b"\0".join(os.fsencode(f"{self.prefix}{p}") for p in names) + b"\0"
        out = self._git("check-attr", "-z", "--stdin", *asked, stdin=spec)[1].split(b"\0")
        touched = {
            os.fsdecode(out[i]).removeprefix(self.prefix)
            for i in range(0, len(out) - 2, 3)
            if out[i + 2] != b"unspecified"
        }
        return {p for p in names if p not in touched}

    def current(self, paths: Iterable[str]) -> dict[str, Entry | None]:
        found: dict[str, Entry | None] = {}
        files: list[str] = []
        for path in paths:
            target = self.top / self.prefix / path
            try:
                info = target.lstat()
            except OSError:
                found[path] = None
                continue
            if stat.S_ISLNK(info.st_mode):
                link = os.fsencode(os.readlink(target))
                digest = sha1(b"blob %d\0" % len(link) + link).hexdigest()  # noqa: S324
                found[path] = Entry(0o120000, digest, len(link))
            elif stat.S_ISREG(info.st_mode):
                found[path] = Entry(0o100755 if info.st_mode & 0o100 else 0o100644, "")
                files.append(path)
            else:
                found[path] = Entry(stat.S_IFMT(info.st_mode), "")
        digests = self._as_added(files) if files else {}
        for path in files:
            found[path] = Entry(found[path].mode, digests[path])  # type: ignore[union-attr]
        return found

    def _as_added(self, paths: list[str]) -> dict[str, str]:
        """The blob id `git add` would give each file now, as a snapshot's scan does:
        added to a scratch copy of the user's index, since git's line-ending rules read
        the index (a file committed with CRLF before `text=auto` stays CRLF, where
        `git hash-object`, which reads no index, would normalize it)."""
        name = f"current-{os.getpid()}-{threading.get_ident()}"
        self.done(name)
        index = self._index(name)
        index.parent.mkdir(parents=True, exist_ok=True)
        if worth_copying(self.user_index, self.cap_bytes):
            copy_new(self.user_index, index)
        env = self._env(index)
        spec = b"\0".join(os.fsencode(f":(literal){self.prefix}{p}") for p in paths)
        from_stdin = ("--pathspec-from-file=-", "--pathspec-file-nul")
        try:
            self._git("add", "-f", *from_stdin, env=env, stdin=spec)
            out = self._git("ls-files", "-s", "-z", env=env)[1]  # no --pathspec-from-file
        finally:
            self.done(name)
        wanted, digests = set(paths), {}
        for record in out.split(b"\0"):
            if record:
                meta, raw = record.split(b"\t", 1)
                path = os.fsdecode(raw).removeprefix(self.prefix)
                if path in wanted:
                    digests[path] = meta.split()[1].decode()
        missing = [p for p in paths if p not in digests]
        if missing:  # gone between the lstat and git's read
            raise SnapshotError(f"cannot read {missing[0]} (it changed while read)")
        return digests

    def rule_files(self) -> list[Path]:
        """The repository's ignore and attribute files and the user's index (a tracked
        file is never ignored); every config file git reads here (includes, a worktree's
        own config, $GIT_CONFIG_GLOBAL: as `git config --show-origin` names them) and
        those it would read if made; the global ignore and attribute files the config
        names (or git's defaults); the `.gitignore` and `.gitattributes` of the folders
        above the workspace."""
        folders = [self.repo.git_dir, self.repo.common_dir] if self.repo else []
        names = ("info/exclude", "info/attributes", "config", "config.worktree", "index")
        files = [folder / name for folder in folders for name in names]
        home = Path.home()
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        files += [Path("/etc/gitconfig"), Path("/etc/gitattributes"), home / ".gitconfig"]
        files += [xdg / "git/config", xdg / "git/ignore", xdg / "git/attributes"]
        files += [Path(os.environ[n]) for n in ENV_CONFIGS if os.environ.get(n)]
        files += self._config_sources()
        above = Path(self.prefix).parts[:-1] if self.prefix else ()
        for depth in range(len(above) + 1):
            folder = self.top.joinpath(*above[:depth])
            files += [folder / ".gitignore", folder / ".gitattributes"]
        return list(dict.fromkeys((self.top / path).absolute() for path in files))

    def _config_sources(self) -> list[Path]:
        """The config files git reads here and the ignore and attribute files they name."""
        args = ("config", "--show-origin", "--path", "-z", "--get-regexp", ".")
        code, out = self._git(*args, check=False)
        fields = out.split(b"\0") if code == 0 else []
        found = []
        for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
            kind, _, where = os.fsdecode(origin).partition(":")
            if kind == "file" and where:
                found.append(Path(where))
            key, _, value = os.fsdecode(entry).partition("\n")
            if key in ("core.excludesfile", "core.attributesfile") and value:
                found.append(Path(value).expanduser())
        return found

    def mode_for(self, entry: Entry, existing: int | None) -> int:
        if existing is None:
            mask = os.umask(0)
            os.umask(mask)
            existing = 0o666 & ~mask
        if entry.mode & 0o111:
            return existing | ((existing & 0o444) >> 2)  # executable where readable
        return existing & ~0o111

    def keep(self, run_id: str, snap: str) -> None:
        self._git("update-ref", "--no-deref", REF + run_id, snap)

    def drop(self, run_id: str) -> None:  # --no-deref: a symbolic ref's target stays
        self._git("update-ref", "--no-deref", "-d", REF + run_id)
        self.done(run_id)

    def done(self, name: str) -> None:
        folder = self._index(name).parent
        if os.path.lexists(folder):
            shutil.rmtree(folder)  # never follows a link
