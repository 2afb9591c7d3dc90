"""``~/.gemini/trustedFolders.json`` as an additional trust source (reference/conventions.md §3.6).

Switched on by the host: ``HostProfile.settings["gemini_trusted_folders"] = True``.
The file maps a path to ``TRUST_FOLDER``, ``TRUST_PARENT`` or ``DO_NOT_TRUST``
(comments allowed). Matching follows Gemini CLI: both sides are resolved real
paths; a rule covers its path and everything below it; a ``TRUST_PARENT``
rule covers the folder *containing* its path; among matching rules the longest
(effective) path wins; ``DO_NOT_TRUST`` gives ``untrusted``, the other two
``trusted``; no match passes (the next trust source, wskit's own store, answers).

wskit's own store keeps the last word: when it records a decision covering
the folder (``wsctl trust grant/revoke``), this source passes. A file that is
not an object, or holds another value, is a configuration error (Gemini:
fatal): the decision is ``unknown`` with ``error`` set, so project sources stay
hidden (fail closed).
"""

from __future__ import annotations

import os
from pathlib import Path

from wskit.trust import TrustDecision

from .config import GEMINI_DIR, read_jsonc

SETTING = "gemini_trusted_folders"
FILE = "trustedFolders.json"
VALUES = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def _covers(rule: str, target: str) -> bool:
    return target == rule or target.startswith(rule.rstrip(os.sep) + os.sep)


def gemini_decision(source_root: Path, home: Path) -> TrustDecision | None:
    """The decision of ``<home>/.gemini/trustedFolders.json`` for ``source_root``.

    :returns: a :class:`~wskit.trust.TrustDecision` with ``source="gemini"``, or
        None when no rule matches (or the file is absent).
    """
    path = os.path.join(str(home), GEMINI_DIR, FILE)
    data, diags = read_jsonc(home, f"{GEMINI_DIR}/{FILE}", follow_links=True, code="gemini-trust-invalid")
    target = _real(str(source_root))
    if diags:
        return TrustDecision(path=target, state="unknown", source="gemini",
                             error=f"{path}: {diags[0].message}")
    if data is None:
        return None
    if not isinstance(data, dict):
        return TrustDecision(path=target, state="unknown", source="gemini", error=f"{path}: must hold a JSON object")
    best: tuple[int, str, str] | None = None
    for raw, value in data.items():
        if value not in VALUES:
            return TrustDecision(path=target, state="unknown", source="gemini",
                                 error=f"{path}: invalid trust level {value!r} for {raw!r} "
                                 f"(expected one of {', '.join(VALUES)})")
        rule = _real(raw)
        effective = os.path.dirname(rule) if value == "TRUST_PARENT" else rule
        if _covers(effective, target) and (best is None or len(effective) > best[0]):
            best = (len(effective), effective, value)
    if best is None:
        return None
    state = "untrusted" if best[2] == "DO_NOT_TRUST" else "trusted"
    return TrustDecision(path=target, state=state, decided_by=best[1], source="gemini")
