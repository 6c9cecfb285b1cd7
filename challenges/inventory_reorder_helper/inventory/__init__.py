"""Inventory helpers."""
