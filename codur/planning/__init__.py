"""Planning helpers: phase-0 patterns (no model) and robust parsing of planner replies."""
