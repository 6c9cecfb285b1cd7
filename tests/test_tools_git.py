"""Git tools against a real repository (git init in tmp_path, identity set locally)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codur.approval import Gate
from codur.config.schema import ToolsConfig


def _log(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "log", "--format=%s"], cwd=repo, capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def test_status_diff_stage_and_commit(call, tool_ctx, git_repo) -> None:
    assert call("git_status").output == "## main"
    (git_repo / "README.md").write_text("# demo\nmore\n")
    (git_repo / "new.py").write_text("x = 1\n")
    status = call("git_status").output
    assert status.splitlines() == ["## main", " M README.md", "?? new.py"]
    diff = call("git_diff").output
    assert "+more" in diff and "diff --git a/README.md b/README.md" in diff
    assert call("git_diff", path="new.py").output == "(no changes)"
    assert call("git_stage_files", paths=["README.md", "new.py"]).output == (
        "Staged: README.md, new.py"
    )
    assert "+x = 1" in call("git_diff", staged=True).output
    tool_ctx.gate = Gate("auto-edit", lambda q, d: False, tool_ctx.bus)
    refused = call("git_commit", message="Add more")
    assert (
        not refused.ok
        and "the user declined: commit" in refused.output
        and _log(git_repo) == ["initial commit"]
    )
    asked = []
    tool_ctx.gate = Gate("auto-edit", lambda q, d: asked.append(q) or True, tool_ctx.bus)
    done = call("git_commit", message="Add more")
    assert done.ok and done.output.startswith("Committed: ") and done.output.endswith("Add more")
    assert asked == ["Allow the agent to commit 2 staged file(s) with message 'Add more'?"]
    assert _log(git_repo) == ["Add more", "initial commit"]
    assert call("git_status").output == "## main"


def test_log(call, tool_ctx, git_repo) -> None:
    for n in range(3):
        (git_repo / f"f{n}.txt").write_text(str(n))
        call("git_stage_files", paths=[f"f{n}.txt"])
        call("git_commit", message=f"commit {n}")
    lines = call("git_log", max_count=2).output.splitlines()
    assert len(lines) == 2 and lines[0].endswith("Codur Test: commit 2")
    assert call("git_log", path="f0.txt").output.endswith("Codur Test: commit 0")
    assert "max_count must be at least 1" in call("git_log", max_count=0).output


def test_git_bad_inputs(call, git_repo) -> None:
    assert "nothing is staged" in call("git_commit", message="x").output
    assert "commit message is empty" in call("git_commit", message="  ").output
    assert "at least one path" in call("git_stage_files", paths=[]).output
    assert "outside the workspace" in call("git_stage_files", paths=["../x"]).output
    assert "pathspec 'nope.txt' did not match" in call("git_stage_files", paths=["nope.txt"]).output
    assert "outside the workspace" in call("git_diff", path="/etc/passwd").output


def _nested_repo(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "f.py").write_text("x = 1\n")
    run = {"cwd": folder, "check": True}
    subprocess.run(["git", "init", "-q"], **run)
    subprocess.run(["git", "add", "f.py"], **run)
    subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=b", "commit", "-qm", "i"], **run)


def test_stage_refuses_paths_in_a_repository_of_their_own(call, git_repo) -> None:
    """git add skips a path inside a nested repository (exit 0, nothing staged) and
    records the nested folder itself as a bare commit link: both are refused, by name."""
    _nested_repo(git_repo / "vendor" / "lib")
    (git_repo / "a.py").write_text("a = 1\n")
    for path, holder in [("vendor/lib/f.py", "vendor/lib"), ("vendor/lib", "vendor/lib"),
                         ("vendor", "vendor/lib"), (".", "vendor/lib")]:  # fmt: skip
        out = call("git_stage_files", paths=["a.py", path]).output
        shown = path if path.startswith(holder) else holder
        assert f"cannot stage {shown}: {holder} is a git repository of its own" in out, out
        assert out.endswith("nothing staged")
    assert call("git_diff", staged=True).output == "(no changes)"  # a.py not staged either
    assert call("git_stage_files", paths=["a.py"]).output == "Staged: a.py"
    _nested_repo(git_repo / "odd\nname")  # git add --dry-run would print it on two lines
    assert "odd\nname is a git repository" in call("git_stage_files", paths=["."]).output


def test_stage_what_git_takes_for_no_repository(call, git_repo) -> None:
    """A `.git` that is no repository (a stray file, an empty folder), or a repository
    made inside a folder the outer one tracks, does not stop git from staging."""
    for folder in ("stray", "empty"):
        (git_repo / folder).mkdir()
        (git_repo / folder / "t.py").write_text("t = 1\n")
    (git_repo / "stray" / ".git").write_text("junk\n")
    (git_repo / "empty" / ".git").mkdir()
    assert call("git_stage_files", paths=["stray/t.py", "empty"]).output.startswith("Staged")
    (git_repo / "tracked").mkdir()
    (git_repo / "tracked" / "f.py").write_text("x = 1\n")
    subprocess.run(["git", "add", "tracked/f.py"], cwd=git_repo, check=True)
    subprocess.run(["git", "init", "-q"], cwd=git_repo / "tracked", check=True)  # after
    (git_repo / "tracked" / "f.py").write_text("x = 2\n")
    assert call("git_stage_files", paths=["tracked/f.py"]).output == "Staged: tracked/f.py"
    staged = call("git_diff", staged=True).output
    assert "+x = 2" in staged and "stray/t.py" in staged and "empty/t.py" in staged


def test_stage_a_submodules_new_commit(call, git_repo, tmp_path) -> None:
    """A registered submodule is staged as git does it (its new commit); git refuses a
    path inside it."""
    source = tmp_path / "source"
    source.mkdir()
    git = ["git", "-c", "user.name=a", "-c", "user.email=b", "-c", "protocol.file.allow=always"]
    steps = [
        (["init", "-q"], source),
        (["commit", "-q", "--allow-empty", "-m", "s"], source),
        (["submodule", "add", "-q", str(source), "sub"], git_repo),
        (["commit", "-qm", "sub"], git_repo),
        (["commit", "-q", "--allow-empty", "-m", "t"], git_repo / "sub"),
    ]
    for args, cwd in steps:
        subprocess.run([*git, *args], cwd=cwd, check=True, capture_output=True)
    assert call("git_stage_files", paths=["sub"]).output == "Staged: sub"
    assert "Subproject commit" in call("git_diff", staged=True).output
    refused = call("git_stage_files", paths=["sub/x"])  # git's own refusal
    assert not refused.ok and "is in submodule 'sub'" in refused.output, refused.output


def test_not_a_repository(call, tool_ctx) -> None:
    result = call("git_status")
    assert not result.ok and "not a git repository" in result.output


def test_git_timeout_comes_from_config(call, tool_ctx, git_repo) -> None:
    hook = git_repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nsleep 30\n")
    hook.chmod(0o755)
    tool_ctx.config = ToolsConfig(git_timeout_s=0.5, git_hooks=True)
    (git_repo / "a.txt").write_text("a")
    call("git_stage_files", paths=["a.txt"])
    result = call("git_commit", message="slow hook")
    assert not result.ok and "git commit stopped after 0.5 s" in result.output
    assert result.duration_s < 10


def test_hooks_run_only_when_configured(call, tool_ctx, git_repo) -> None:
    hook = git_repo / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\necho ran >> hook.log\n")
    hook.chmod(0o755)
    for n, hooks in enumerate((False, True)):
        tool_ctx.config = ToolsConfig(git_hooks=hooks)
        (git_repo / f"{n}.txt").write_text("a")
        call("git_stage_files", paths=[f"{n}.txt"])
        assert call("git_commit", message=f"commit {n}").ok
        assert (git_repo / "hook.log").exists() is hooks
