"""Repair search: small AST edits to failing code, tried without a model."""
