"""Build a session from explicit resources (no loaders, no trust store): for
hosts that bring their own definitions, and for tests of the runtime."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..binding import Binding
from ..models import Provenance, Resource, Scope
from ..registry import Candidate, Registry
from ..session import SessionResources
from ..trust import TrustDecision

_RANK = {Scope.BUILTIN: 0, Scope.ADMIN: 1, Scope.USER: 2, Scope.PROJECT: 3, Scope.LOCAL: 4, Scope.PLUGIN: 5, Scope.CLI: 6}


def provenance(scope: str | Scope, root: str | Path, path: str, content: Any, plugin: str | None = None) -> Provenance:
    """A :class:`~wskit.models.Provenance` whose sha256 is that of ``content``'s canonical JSON."""
    data = json.dumps(content, sort_keys=True, default=str).encode()
    return Provenance(scope=Scope(scope), source_root=str(root), path=path, plugin=plugin,
                      sha256=hashlib.sha256(data).hexdigest())


def session_from_resources(binding: Binding, resources: Iterable[Resource], *, host: str = "wskit",
                           trusted: bool = True, hooks: Any = None) -> SessionResources:
    """A :class:`~wskit.session.SessionResources` holding ``resources`` (one registry
    per kind, precedence by scope rank).

    :param binding: source project, execution root and cwd.
    :param trusted: the trust decision recorded (``trusted`` or ``untrusted``).
    :param hooks: a :class:`~wskit.plugin.hooks.WskitHooks` facade (for services from plugins).
    """
    by_kind: dict[str, list[Candidate]] = {}
    for i, r in enumerate(resources):
        by_kind.setdefault(r.kind, []).append(Candidate(r, _RANK[r.provenance.scope], i))
    regs = {k: Registry.build(k, c) for k, c in by_kind.items()}
    trust = TrustDecision(path=str(binding.source_root), state="trusted" if trusted else "untrusted")
    return SessionResources(binding=binding, host=host, trust=trust, registries=MappingProxyType(regs),
                            generation=0, hooks=hooks)
