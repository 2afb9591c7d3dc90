"""Conformance of wskit's host profiles with the real hosts (docs/compatibility.md)."""
