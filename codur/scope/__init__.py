"""Edit scope: what a run may change (the oracle never, named files, never a harness)."""

from codur.scope.decide import decide_scope
from codur.scope.policy import EditScope, ScopeError

__all__ = ["EditScope", "ScopeError", "decide_scope"]
