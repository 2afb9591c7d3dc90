"""Cases where wskit's answer under a host profile deliberately differs from the host's
(each is a row of docs/compatibility.md): ``(host, case id) -> why``."""

from __future__ import annotations

__all__ = ["DIFFERENCES"]

_OUTSIDE = ("a link that leaves the source project is refused (a cloned repository must not pull in "
            "files from elsewhere on the machine, e.g. ~/.ssh/config through AGENTS.md); the diagnostic names the target")

DIFFERENCES: dict[tuple[str, str], str] = {
    ("claude", "link-outside"): _OUTSIDE,
    ("codex", "link-outside"): _OUTSIDE,
    ("gemini", "link-outside"): _OUTSIDE,
    ("opencode", "link-outside"): _OUTSIDE,
}
