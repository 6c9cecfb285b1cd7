"""How `codur ARGS` finds its command: `codur "TASK"` means `codur run "TASK"`, a word that
is almost a command is refused, not run as a task. Light: imported when `codur --help` runs."""

from __future__ import annotations

import difflib
import sys

import typer
from typer.core import TyperGroup

from codur.errors import UsageError

HELP_FLAGS = ("-h", "--help")
"""The help options of every command (click's context setting, inherited by subcommands)."""
VERSION_FLAGS = ("-V", "--version")
"""The top-level options that print the version (`codur version`)."""


class DefaultToRun(TyperGroup):
    """`codur "TASK"` means `codur run "TASK"`: a first word that is no command is a task,
    when it is more than one word (`codur undoo`, `codur tools`: a usage error naming the
    nearest commands; a one-word task is `codur run WORD` or `codur -- WORD`). No task at
    all, in a terminal, means `codur chat`; elsewhere, options with no task (`codur -m
    groq`) are a run's, which says its task is missing. Options may come before the
    command (`codur -C DIR undo`, `codur -C DIR memory show`): the command is moved
    first."""

    routed: str | None = None
    """The command the last parse chose (`run` for a task): main's error handling says a
    run's or a question's end in --json even when the command line stopped it."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        first = self._first_word(args)
        asked = {*HELP_FLAGS, *VERSION_FLAGS} & set(args)
        task = first is not None and "--" in args[:first]  # `codur -- WORD`: a task, asked for
        if first is None and sys.stdin.isatty() and not asked:
            args = ["chat", *args]  # no task, in a terminal: a chat session
        elif first is None and args and not asked:
            args = ["run", *args]  # options of a run and no task: run says the task is missing
        elif first is not None and not task and args[first] in self.commands:
            head, rest = [args[first]], args[first + 1 :]
            if isinstance(self.commands[head[0]], TyperGroup) and rest[:1] not in (
                [f] for f in HELP_FLAGS
            ):
                head += rest[:1]  # a group's command (`codur -C DIR memory show`) takes them
                rest = rest[1:]
            args = [*head, *args[:first], *rest]
        elif first is not None:
            if not task:
                self._refuse_a_word(args[first], args[first + 1 :])
            args = ["run", *args]
        DefaultToRun.routed = args[0] if args else None
        return super().parse_args(ctx, args)

    def _refuse_a_word(self, word: str, after: list[str]) -> None:
        """A task of one word is a mistyped command more often than a task (`codur undoo`
        ran the model for minutes): refuse it, naming the nearest commands; words after
        a word like no command are a task typed without quotes (`codur fix the bug`):
        say how to quote it."""
        if len(word.split()) != 1:  # a task of words, or an empty one (run says so)
            return
        names = [name for name, command in self.commands.items() if not command.hidden]
        nearest = difflib.get_close_matches(word, names, n=3, cutoff=0.6)
        words = [w for w in after if not w.startswith("-")]
        if words and not nearest:
            typed = " ".join([word, *words])
            raise UsageError(
                f"no command '{word}'; a task of several words goes in quotes: codur \"{typed}\""
            )
        said = f"did you mean {' or '.join(nearest)}?" if nearest else "see codur --help"
        raise UsageError(
            f"no command '{word}' ({said}); a task is more than one word "
            f'(codur "{word} ..."), a one-word task: codur run {word}'
        )

    def _first_word(self, args: list[str]) -> int | None:
        """The index of the first argument that is neither an option nor its value."""
        valued = {
            name
            for command in [self, *self.commands.values()]
            for param in command.params
            if getattr(param, "param_type_name", "") == "option" and not param.is_flag
            for name in param.opts
        }
        index = 0
        while index < len(args):
            arg = args[index]
            if arg == "--":
                return index + 1 if index + 1 < len(args) else None
            if not arg.startswith("-") or arg == "-":
                return index
            index += 2 if arg in valued else 1
        return None
