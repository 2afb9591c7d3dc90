"""The resource kind ``gemini_extension``: one resource per loaded extension.

It shows how a plugin adds a kind without a hookspec of its own: the
:class:`~wskit.kinds.ResourceKind` names a ``loader`` callable that wskit calls
for every source; it answers only for extension sources. The resource keeps
what has no other home in wskit: the version, the context files and
``excludeTools`` (a host applies them to its tool list).
"""

from __future__ import annotations

from typing import Any

from wskit.kinds import ResourceKind
from wskit.models import LoadResult, Provenance, ResourceSource, sha256_hex

KIND = "gemini_extension"


def __getattr__(name: str) -> Any:
    """:class:`~wskit_gemini.resource.GeminiExtension`, imported (and its model class
    built) where an extension is loaded (PEP 562)."""
    if name == "GeminiExtension":
        from .resource import GeminiExtension

        return GeminiExtension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_extension_resource(source: ResourceSource) -> LoadResult:
    """The :class:`GeminiExtension` of an extension source (an empty result for other sources).
    Manifest problems are reported by the bundle hook, not again here."""
    from . import is_extension_source

    if not is_extension_source(source):
        return LoadResult()  # nothing imported for the other sources
    from wskit import fs

    from .extensions import MANIFEST, USER_RANK, load_extension
    from .resource import GeminiExtension

    origin = "user" if source.rank == USER_RANK else "project"
    ext, _ = load_extension(source.root, origin, source.base, None)
    if ext is None:
        return LoadResult()
    try:
        raw = fs.read_bytes(source.root, MANIFEST, follow_links=origin == "user").raw
    except fs.SafeFsError as err:
        return LoadResult(diagnostics=(err.diagnostic(plugin=ext.name),))
    res = GeminiExtension(
        id=f"plugin:{ext.name}:{ext.name}", name=ext.name, description=ext.description,
        provenance=Provenance(scope=source.scope, source_root=source.base, path=MANIFEST, plugin=ext.name,
                              sha256=sha256_hex(raw)),
        version=ext.version, origin=origin, context_files=ext.context_files, exclude_tools=ext.exclude_tools,
        mcp_servers=tuple(sorted(ext.mcp_servers)),
    )
    return LoadResult(resources=(res,))


def extension_kind() -> ResourceKind:
    """The ``gemini_extension`` kind (loader: :func:`load_extension_resource`)."""
    return ResourceKind(name=KIND, loader=load_extension_resource, default_dir="", plural="gemini_extensions")
