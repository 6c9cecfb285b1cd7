"""What a provider module offers (a Protocol satisfied by the module itself)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from codur.config.schema import LLMProfile

ErrorKind = Literal["transient", "fatal"]


class Provider(Protocol):
    def build(self, name: str, profile: LLMProfile) -> BaseChatModel:
        """A chat model for `profile`; tool calling via `bind_tools` like every provider."""

    def classify(self, exc: BaseException) -> ErrorKind | None:
        """transient: retry with backoff (connection, timeout, 429, 5xx); fatal: a provider
        error retrying won't fix (4xx); None: not a provider error, let it propagate."""

    def endpoint(self, profile: LLMProfile) -> str:
        """Where the model lives (URL or file), for error messages."""
