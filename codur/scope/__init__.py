"""Edit scope: what a run may change (the oracle never, named files, never a harness)."""

from codur.scope.policy import EditScope, ScopeError, decide_scope

__all__ = ["EditScope", "ScopeError", "decide_scope"]
