"""Snapshots of the workspace around each run, and putting a run's changes back.

Before anything of a run happens (a program, a tool, an edit), the workspace is
snapshotted; when the run ends, again. `codur undo` restores what the run changed from the
first (content, mode, files it created or deleted, whoever changed them: Codur's edits or
the programs it ran), after checking against the second that the user changed none of
those files since. Two stores, one interface (`store.Store`):

- in a git repo (`gitstore.py`): commits of the working tree, untracked non-ignored files
  included, made with a private index and kept under `refs/codur/runs/<run id>`;
- elsewhere (`filestore.py`): a content-addressed copy in the user state folder.

`records.py` keeps one JSON record per run (what, when, which snapshots) and prunes old
ones; `snapshot.py` is a run's side of it; `restore.py` and `diff.py` read records back.
The design is in docs/safety.md.
"""

from __future__ import annotations

from pathlib import Path


def state_root() -> Path:
    """Where records, the content-addressed copies and private indexes live."""
    from platformdirs import user_state_dir

    return Path(user_state_dir("codur")) / "undo"
