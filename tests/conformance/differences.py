"""Cases where wskit's answer under a host profile deliberately differs from the host's
(each is a row of docs/compatibility.md): ``(host, case id) -> why``."""

from __future__ import annotations

__all__ = ["DIFFERENCES"]

DIFFERENCES: dict[tuple[str, str], str] = {}
