"""The agent graph: `state` (what flows), `outcome` (what an attempt did), `decide` (the
review's decision table), `build` (wiring), `nodes/` (see docs/architecture.md)."""
