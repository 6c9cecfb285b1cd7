"""Typed, layered configuration: `schema` defines it, `loader` builds it from its sources."""

from codur.config.loader import LoadedConfig, load_config
from codur.config.schema import CodurConfig, LLMProfile

__all__ = ["CodurConfig", "LLMProfile", "LoadedConfig", "load_config"]
