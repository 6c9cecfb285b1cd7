"""Every node's prompt, replaceable: the registry of node prompts (`registry`), reading
and checking a template (`template`), and the book a session renders them from (`book`).
Below config (config checks the `prompts` section with it), above errors."""

from codur.promptbook.book import PromptBook
from codur.promptbook.registry import REGISTRY, PromptSpec
from codur.promptbook.template import PromptError

__all__ = ["REGISTRY", "PromptBook", "PromptError", "PromptSpec"]
