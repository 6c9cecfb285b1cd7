"""The agent graph: `state` (what flows), `build` (wiring), `routing` (pure routers), `nodes/`."""
