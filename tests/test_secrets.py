"""Secrets (issue 39, item 6), as a hostile program or server would go after them: real
`codur` processes, real programs, a real HTTP server on 127.0.0.1; only the model is
scripted (or the fake server answers for it).

The /proc case is meant to run as root (CI and containers do): a root program holds
every capability unless Codur takes them, so it is the hardest case; run as another
user the test still holds (a program of the same user)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fake_servers import Fail, OpenAIServer, Reply
from helpers import debug_log, run_cli, scripted_profile, whole_file, write_files
from test_ask import FINISH, LOOP_FLAGS, PLAN, QUESTION, SEARCH, SUMMARY
from test_code_search import FILES

from codur.process import run_process
from codur.redaction import Redactor, dotenv_secrets, is_secret_name, remember, url_passwords
from codur.sandbox import Sandbox
from codur.sandbox.env import scrubbed
from codur.ui import IO, Outline

pytestmark = pytest.mark.usefixtures("both_ways")  # forked, and through child.py

KEY = "sk-live-Qm7Yt2Lx9Rb4Wp6Nz8"

PEEK = """
import os
me, codur = os.getpid(), os.getppid()
read, seen = {}, []
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) == me:
        continue
    try:
        with open(f"/proc/{name}/environ", "rb") as fh:
            seen.append(fh.read())
        read[name] = "read"
    except OSError as exc:
        read[name] = type(exc).__name__
with open(os.path.join(os.environ["OUT"], "leak.bin"), "wb") as fh:
    fh.write(b"\\n".join(seen))
with open(os.path.join(os.environ["OUT"], "codur.txt"), "w") as fh:
    fh.write(read.get(str(codur), "missing"))
print("done")
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="no /proc here")
def test_a_program_cannot_read_codur_s_environment_even_as_root(tmp_path: Path) -> None:
    """The check's program reads /proc/<pid>/environ of every process it can see, Codur
    (its parent) first: the model's key is in none of them. Fails on a Codur whose
    environment block a program of the same user (or root) may read."""
    work, out = tmp_path / "w", tmp_path / "out"
    work.mkdir()
    out.mkdir()
    write_files(work, {"main.py": PEEK, "expected.txt": "done\n"})
    flags = scripted_profile(tmp_path, [whole_file("main.py", PEEK)])
    env = {"OPENAI_API_KEY": KEY, "OUT": str(out)}
    done = run_cli([*flags, "-o", f"sandbox.writable=[{out}]", "fix @main.py"], work, env=env)
    assert (out / "codur.txt").exists(), done.stdout + done.stderr  # the program ran
    assert (out / "codur.txt").read_text() == "PermissionError"  # Codur: refused
    assert KEY.encode() not in (out / "leak.bin").read_bytes()


@pytest.mark.slow
def test_programs_get_no_url_credentials_nor_secret_named_variables(tmp_path: Path) -> None:
    """DATABASE_URL with a password, *_PAT, *_PASS, *_DSN never reach a program; the
    password of a URL is masked wherever Codur shows or logs it."""
    work = tmp_path / "w"
    work.mkdir()
    secrets = {
        "DATABASE_URL": "postgres://app:Pg-pass-4417@db.example:5432/app",
        "GH_PAT": "github_pat_11ABCDEF0123456789",
        "SMTP_PASS": "mail-pass-0987",
        "SENTRY_DSN": "https://public0123@o1.ingest.sentry.io/1",
    }
    out = tmp_path / "out"
    out.mkdir()
    dump = (
        "import json, os\nshown = json.dumps(dict(os.environ))\n"
        "open(os.path.join(os.environ['OUT'], 'env.json'), 'w').write(shown)\nprint(shown)\n"
    )
    write_files(work, {"main.py": dump, "expected.txt": "{}\n"})
    flags = [*scripted_profile(tmp_path, [whole_file("main.py", dump)]), "--verbose"]
    flags += ["-o", f"sandbox.writable=[{out}]"]
    mark = {"HARMLESS_MARK": "visible-7391", "OUT": str(out)}
    done = run_cli([*flags, "fix @main.py"], work, env={**secrets, **mark})
    environment = json.loads((out / "env.json").read_text())
    assert "PATH" in environment and "OUT" in environment  # the program ran, and dumped it
    assert not set(secrets) & set(environment)
    shown = done.stdout + done.stderr + debug_log(work).read_text()
    assert "visible-7391" in shown  # its output was shown and logged
    for value in ("Pg-pass-4417", *list(secrets.values())[1:]):
        assert value not in shown


def test_scrub_rules() -> None:
    environ = {
        "DATABASE_URL": "mysql://root:hunter2hunter2@localhost/db",
        "PLAIN_URL": "https://example.com/x",
        "GH_PAT": "pat-0123456789",
        "AWS_REGION": "eu-west-1",
        "PWD": "/home/me",
        "PATH": "/bin",
        "COPY": "hunter2hunter2",  # the URL's password under another name
    }
    kept, removed = scrubbed(environ)
    assert kept == {
        "PLAIN_URL": "https://example.com/x",
        "AWS_REGION": "eu-west-1",
        "PWD": "/home/me",
        "PATH": "/bin",
    }
    assert removed == ["COPY", "DATABASE_URL", "GH_PAT"]
    assert url_passwords(environ["DATABASE_URL"])[0] == "hunter2hunter2"  # then as Basic
    # percent-encoded: sent decoded (`me:p@ss:w0rd`), so masked decoded too (a reviewer's)
    encoded = url_passwords("http://me:p%40ss%3Aw0rd@host/v1")
    assert encoded == ["p%40ss%3Aw0rd", "p@ss:w0rd", "bWU6cEBzczp3MHJk"]
    secret = ("GITHUB_TOKEN", "X_PASSWD", "GOOGLE_CREDENTIALS", "DB_PWD", "A-DSN", "npm_auth")
    for name in (*secret, "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        assert is_secret_name(name), name
    for name in ("PATH", "PYTHONPATH", "OLDPWD", "HOME", "LANG", "PASSAGE", "AWS_REGION"):
        assert not is_secret_name(name), name


@pytest.mark.slow
def test_a_401_that_echoes_the_key_prints_no_key(tmp_path: Path) -> None:
    """The provider's error body holds the key: the one-line error on stderr, the --json
    events and the debug log say the error without it."""
    work = tmp_path / "w"
    work.mkdir()
    (work / "main.py").write_text("print(1)\n")
    server = OpenAIServer().start()
    try:
        server.default = Fail(401, f"Incorrect API key provided: {KEY}")
        flags = [
            *(
                "-o",
                "llm.profiles.o.provider=openai",
                "-o",
                f"llm.profiles.o.base_url={server.base_url}",
            ),
            *("-o", "llm.profiles.o.model=m", "-o", "llm.profiles.o.api_key_env=LLM_CRED_X"),
            *("--profile", "o", "-o", "repair.enabled=false"),
        ]
        for mode in ([], ["--json"]):
            done = run_cli([*flags, *mode, "fix @main.py"], work, env={"LLM_CRED_X": KEY})
            assert done.returncode == 3, done.stderr
            assert "401" in done.stderr and "Incorrect API key provided: ***" in done.stderr
            assert KEY not in done.stderr + done.stdout
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    finally:
        server.stop()
    assert KEY not in debug_log(work).read_text()


def test_every_human_line_is_redacted(capsys) -> None:
    io = IO(redact=Redactor([KEY]))
    io.info(f"info {KEY}")
    io.success(f"ok {KEY}")
    io.warn(f"warn {KEY}")
    io.error(f"error {KEY}")
    io.diff(f"+key = {KEY}\n")
    io.table(f"t {KEY}", ["a"], [[KEY]])
    io.tree(Outline([(KEY, "")], [Outline([(f"child {KEY}", "")])]))
    io.raw(f"raw {KEY}")
    io.json({"nested": [KEY]})
    out, err = capsys.readouterr()
    assert KEY not in out + err
    assert (out + err).count("***") >= 10


@pytest.mark.slow
def test_an_answer_holding_a_key_is_cached_without_it(tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    write_files(root, FILES)
    answer = f"Set the key: export OPENAI_API_KEY={KEY} (see `cfg/loader.py:8-12`)."
    flags = scripted_profile(tmp_path, [PLAN, SEARCH, SUMMARY, FINISH, answer])
    done = run_cli(["ask", *flags, *LOOP_FLAGS, QUESTION], root, env={"OPENAI_API_KEY": KEY})
    assert done.returncode == 0, done.stderr
    memory = (root / ".codur" / "memory.json").read_text()
    assert KEY not in memory and "OPENAI_API_KEY=***" in memory
    assert KEY not in done.stdout + done.stderr
    again = run_cli(["ask", *flags, *LOOP_FLAGS, QUESTION], root)
    assert "answered from the cache" in again.stdout and KEY not in again.stdout


DOTENV = """\
# the app's settings
export DB_PASSWORD="correct-horse-42"
STRIPE_LIVE_KEY=rk_live_51HxAbCdEf0123456789
DATABASE_URL=postgres://u:Zz9-pass-word@db/app
APP_NAME=myproject  # a plain setting
"""
HIDDEN = ("correct-horse-42", "rk_live_51HxAbCdEf0123456789", "Zz9-pass-word")


def test_dotenv_values_are_secrets(tmp_path: Path) -> None:
    write_files(tmp_path, {".env": DOTENV, "api/.env.local": "TOKEN='tok-abcdef-123'\n"})
    basic = "dTpaejktcGFzcy13b3Jk"  # base64 of the URL's u:Zz9-pass-word, sent as Basic
    assert dotenv_secrets(tmp_path) == {*HIDDEN, "tok-abcdef-123", basic}


@pytest.mark.slow
def test_a_program_printing_dotenv_sends_no_secret_to_the_model(tmp_path: Path) -> None:
    """The check's program prints `.env`: what reaches the model (a real HTTP server),
    the terminal and the log holds none of its secrets, and its plain settings still."""
    work = tmp_path / "w"
    work.mkdir()
    # one line: the check stops a program at its first line that cannot match, and that
    # line (all of .env) is what the model is shown
    program = "print(open('.env').read().replace('\\n', ' | '))\nprint(6)\n"
    write_files(work, {".env": DOTENV, "main.py": program, "expected.txt": "10\n"})
    server = OpenAIServer().start()
    try:
        server.script(Reply("I cannot fix this."))
        flags = [
            *(
                "-o",
                "llm.profiles.o.provider=openai",
                "-o",
                f"llm.profiles.o.base_url={server.base_url}",
            ),
            *("-o", "llm.profiles.o.model=m", "--profile", "o", "-o", "repair.enabled=false"),
            *("-o", "sampling.candidates=0", "-o", "runtime.max_llm_calls=1", "--verbose"),
        ]
        done = run_cli([*flags, "fix @main.py"], work)
        sent = json.dumps([r.body for r in server.requests])
    finally:
        server.stop()
    assert server.requests, done.stdout + done.stderr
    assert "myproject" in sent  # the program's output did reach the model
    shown = sent + done.stdout + done.stderr + debug_log(work).read_text()
    for value in HIDDEN:
        assert value not in shown


def test_run_process_masks_known_secrets_in_output(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(DOTENV)
    remember(dotenv_secrets(tmp_path))
    code = "print(open('.env').read())"
    result = run_process([sys.executable, "-c", code], tmp_path, 30, 100_000, sandbox=Sandbox())
    assert "myproject" in result.stdout and not any(v in result.stdout for v in HIDDEN)


PLAIN_DOTENV = """\
APP_NAME=inventory-service-v2
VERSION=2024.10.1-release3
DB_HOST=db1.internal.example.com
X_SECRET=subprocess
SHORT_TOKEN=Ab1-x
API_KEY=sk-test-Zq81Lw0Rt55
"""


def test_dotenv_secrets_are_named_and_never_plain_words(tmp_path: Path) -> None:
    """Only secret-named values and URL passwords count, and never a short value or a plain
    word (a hostile `X_SECRET=subprocess` would blank that word everywhere)."""
    write_files(tmp_path, {".env": PLAIN_DOTENV})
    assert dotenv_secrets(tmp_path) == {"sk-test-Zq81Lw0Rt55"}


@pytest.mark.slow
def test_a_program_printing_plain_dotenv_settings_is_verified(tmp_path: Path) -> None:
    """The fixed program prints its app name and version from `.env` (no secrets): its
    output matches expected.txt as printed, so the run ends verified; the secret-named
    value it also prints is compared as printed too, and masked in what is shown."""
    work = tmp_path / "w"
    work.mkdir()
    program = (
        "import re\n"
        "env = dict(re.findall(r'^(\\w+)=(.*)$', open('.env').read(), re.M))\n"
        "print(env['APP_NAME'], env['VERSION'], env['DB_HOST'])\n"
        "print(env['API_KEY'])\n"
    )
    expected = (
        "inventory-service-v2 2024.10.1-release3 db1.internal.example.com\nsk-test-Zq81Lw0Rt55\n"
    )
    write_files(work, {".env": PLAIN_DOTENV, "main.py": "print(1 +)\n", "expected.txt": expected})
    flags = scripted_profile(tmp_path, [whole_file("main.py", program)])
    done = run_cli([*flags, "--verbose", "fix @main.py"], work)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified" in done.stdout, done.stdout + done.stderr
    assert "sk-test-Zq81Lw0Rt55" not in done.stdout + done.stderr


@pytest.mark.slow
def test_a_hostile_dotenv_word_is_not_blanked_from_the_diff(tmp_path: Path) -> None:
    """`.env` says `X_SECRET=subprocess`: the diff the user reviews still says
    `subprocess` (a plain word is never masked)."""
    work = tmp_path / "w"
    work.mkdir()
    broken = "print(1 +)\n"
    fixed = "import subprocess\n\nprint(subprocess.__name__)\n"
    files = {".env": "X_SECRET=subprocess\n", "main.py": broken, "expected.txt": "subprocess\n"}
    write_files(work, files)
    flags = scripted_profile(tmp_path, [whole_file("main.py", fixed)])
    done = run_cli([*flags, "fix @main.py"], work)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "+import subprocess" in done.stdout, done.stdout
    assert "***" not in done.stdout


def test_a_url_password_in_the_config_is_never_shown(tmp_path: Path) -> None:
    """A probe's case: `base_url: https://bob:S3cretPassw0rd@host/v1` in a config file was
    written to the debug log and printed by `codur config show`."""
    user = tmp_path / "u.yaml"
    password = "S3cretPassw0rd-7"
    user.write_text(
        f"llm:\n  profiles:\n    openai:\n      base_url: https://bob:{password}@llm.example.com/v1\n"
    )
    work = tmp_path / "w"
    write_files(work, {"main.py": "print(1)\n", "expected.txt": "1\n"})
    shown = run_cli(["config", "show", "--config", str(user)], work)
    assert shown.returncode == 0 and "https://bob:***@llm.example.com" in shown.stdout
    done = run_cli(["--config", str(user), "--no-model", "fix @main.py"], work)
    assert password not in done.stdout + done.stderr + debug_log(work).read_text()


@pytest.mark.slow
def test_a_masked_value_in_the_diff_is_said_and_codur_diff_shows_it(tmp_path: Path) -> None:
    """A probe's case: `.env` holds `API_TOKEN=__import__("os").system(`, so the line a run
    added showed as `***"true")` in the diff the user reviews. The value stays masked (a
    real password may hold any character), and the summary says what *** is and where
    to see the change as it is."""
    work = tmp_path / "w"
    code = '__import__("os").system("true")'
    write_files(work, {".env": 'API_TOKEN=__import__("os").system(\n', "main.py": "print(1 +)\n"})
    (work / "expected.txt").write_text("1\n")
    flags = scripted_profile(tmp_path, [whole_file("main.py", f"{code}\nprint(1)\n")])
    done = run_cli([*flags, "fix @main.py"], work)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '+***"true")' in done.stdout
    assert "*** in the diff stands for a value kept secret" in done.stdout + done.stderr
    shown = run_cli(["diff"], work)
    assert f"+{code}" in shown.stdout
