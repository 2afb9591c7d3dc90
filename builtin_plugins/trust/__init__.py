"""Built-in plugin ``trust``: the trust gate's fallback answer, from the store."""

from __future__ import annotations

from pathlib import Path

from wskit.errors import TrustStoreError
from wskit.plugin import hookimpl
from wskit.trust import TrustDecision, TrustStore

__all__ = ["wskit_register_commands", "wskit_trust_decision"]


@hookimpl(trylast=True)
def wskit_trust_decision(source_root: Path, store: TrustStore) -> TrustDecision:
    """Answer from the user's trust store (nearest recorded ancestor wins).

    An unusable store gives a fail-closed ``unknown`` decision with ``error`` set.
    """
    try:
        return store.decide(source_root)
    except TrustStoreError as err:
        return TrustDecision(path=str(source_root), state="unknown", error=str(err))


@hookimpl
def wskit_register_commands(cli):
    """Add ``trust`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "trust", "wskit.builtin_plugins.trust.cli:trust_group",
                     "Folder trust: only trusted projects load project resources.")
