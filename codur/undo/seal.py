"""Whether the folder is still as the run's witness last knew it, told from file stats.

The witness looks at the folder before and after each program the run starts (a full
snapshot scan: seven git commands, each a confined process). Most looks find nothing
changed: the program only printed, and nobody else touched the folder. A seal is the
lstat of every entry (but the snapshots' exclusions) walked just before the witness's
last scan, updated for the files Codur writes itself. When a new walk finds the same
entries with the same type, mode, size, times and inode, nothing changed since, as git
itself trusts its index: a write moves a file's ctime, which no program can set back.
A file whose times are too close to the walk to tell (file times may be coarse) or that
Codur just wrote is compared by content instead, one store call for all of them. What
a scan holds also depends on files outside the workspace (git's ignore and attribute
files, its config, the user's index: `Store.rule_files`): the seal keeps a digest of
each (small files), and any change to one of them means a scan.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codur.undo.tree import Excluded, lstat_tree

RACY_NS = 2_000_000_000
"""File times may be this coarse (FAT: 2 s): a file changed this close to the walk may
change again without its stat changing, so its content is compared instead."""
MOST_ENTRIES = 10_000
"""Past this many entries the walk costs about what the full scan costs: no seal."""
LARGEST_RULE_BYTES = 8 << 20
"""A rule file larger than this (the index of a huge repository) is told by its stats."""

Stat = tuple[int, int, int, int, int]
"""mode, size, mtime_ns, ctime_ns, inode (a folder: its type alone)."""


@dataclass
class Seal:
    stats: dict[str, Stat]
    at_ns: int
    """When the walk began (time.time_ns())."""
    rules: dict[str, str | None] = field(default_factory=dict)
    """The files outside the workspace that rule what a scan holds, each as `rule_marks`
    gives it."""
    recheck: set[str] = field(default_factory=set)
    """Paths Codur wrote since the walk: compared by content at the next look."""

    def to_compare(self, now: dict[str, Stat], rules: dict[str, str | None]) -> list[str] | None:
        """None when `now` or the rule files' `rules` differ from the seal; else the files
        whose content must still be compared with what the run knows (racy ones, and
        those Codur wrote)."""
        if now != self.stats or rules != self.rules:
            return None
        edge = self.at_ns - RACY_NS
        racy = {p for p, s in now.items() if not stat.S_ISDIR(s[0]) and max(s[2], s[3]) >= edge}
        return sorted(racy | self.recheck)

    def wrote(self, stats: dict[str, Stat | None]) -> None:
        """Codur wrote these paths (stat taken before their content was read): their
        new stats, checked by content at the next look."""
        for path, entry in stats.items():
            if entry is None:
                self.stats.pop(path, None)
            else:
                self.stats[path] = entry
            self.recheck.add(path)


def walk(root: Path, excluded: Excluded, most: int = MOST_ENTRIES) -> dict[str, Stat] | None:
    """The lstat of every entry under `root` but the excluded (links never followed);
    None when there are more than `most`, a folder cannot be read, or an entry is not a
    file, link or folder."""
    found: dict[str, Stat] = {}
    try:
        for rel, info in lstat_tree(root, excluded, strict=True):
            entry = status(info)
            if entry is None or len(found) >= most:
                return None
            found[rel] = entry
    except OSError:
        return None
    return found


def status(info: os.stat_result) -> Stat | None:
    """What the seal keeps of one lstat (None: a kind of entry it does not follow)."""
    if stat.S_ISDIR(info.st_mode):
        return (stat.S_IFDIR, 0, 0, 0, 0)
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        return None
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def sealed(root: Path, excluded: Excluded, rules: Sequence[Path]) -> Seal | None:
    """A seal of `root` and its rule files as they are now (None: the folder is too
    large or odd to seal)."""
    at_ns = time.time_ns()
    stats = walk(root, excluded)
    return Seal(stats, at_ns, rule_marks(rules)) if stats is not None else None


def rule_marks(rules: Sequence[Path]) -> dict[str, str | None]:
    """Each rule file (links followed) as the digest of its content (None: absent or
    unreadable; what is not a regular file, by its kind); one over LARGEST_RULE_BYTES by
    its stats, and, changed within RACY_NS, as a mark that equals no other (its stats
    cannot tell a change just after)."""
    marks: dict[str, str | None] = {}
    for path in rules:
        try:
            info = path.stat()
            if not stat.S_ISREG(info.st_mode):  # a device or pipe is never read
                marks[str(path)] = f"not a file {stat.S_IFMT(info.st_mode):o}"
            elif info.st_size <= LARGEST_RULE_BYTES:
                marks[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif max(info.st_mtime_ns, info.st_ctime_ns) >= time.time_ns() - RACY_NS:
                marks[str(path)] = f"racy {time.perf_counter_ns()}"
            else:
                marks[str(path)] = repr(status(info))
        except OSError:
            marks[str(path)] = None
    return marks


def stats_of(root: Path, paths: list[str]) -> dict[str, Stat | None]:
    """The seal's view of single paths (None: absent, or not a file or link)."""
    found: dict[str, Stat | None] = {}
    for path in paths:
        try:
            found[path] = status((root / path).lstat())
        except OSError:
            found[path] = None
    return found
