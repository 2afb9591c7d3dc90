"""The skill resource (Agent Skills specification, reference/conventions.md §5)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from wskit.models import Resource

__all__ = ["file_digest", "Skill"]

#: (absolute path, follow links) -> (stat signature, hex digest) of :func:`file_digest`
_DIGESTS: dict[tuple[str, bool], tuple[tuple[int, ...], str]] = {}


def file_digest(base: str, rel: str, follow_links: bool, max_bytes: int | None, fallback: str) -> str:
    """Hex SHA-256 of the whole file ``base/rel`` (safe file access, at most
    ``max_bytes`` bytes, default :func:`wskit.fs.read_limit`), cached by its
    ``stat`` signature (device, inode, size, mtime, ctime): a rewrite is seen
    even with the same size and mtime because the ctime changes.

    :returns: the digest, or ``fallback`` when the file cannot be read now.
    """
    import os

    from wskit import fs
    from wskit.models import sha256_hex

    path = os.path.join(base, rel)
    try:
        st = os.stat(path, follow_symlinks=follow_links)
    except (OSError, ValueError):
        return fallback
    sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    hit = _DIGESTS.get((path, follow_links))
    if hit is not None and hit[0] == sig:
        return hit[1]
    try:
        raw = fs.read_bytes(base, rel, max_bytes=max_bytes, follow_links=follow_links).raw
    except fs.SafeFsError:
        return fallback
    digest = sha256_hex(raw)
    if len(_DIGESTS) > 4096:
        _DIGESTS.clear()
    _DIGESTS[(path, follow_links)] = (sig, digest)
    return digest


class Skill(Resource):
    """A skill: a folder ``<slug>/`` holding ``SKILL.md``.

    Only metadata is held (progressive disclosure); the body is read at use
    time, so a session snapshot freezes metadata, not bodies.

    :ivar kind: always ``"skill"``.
    :ivar name: the folder name (slug) — the skill's identity (design §5).
    :ivar display_name: the frontmatter ``name`` (may differ: a warning).
    :ivar directory: absolute path of the skill folder.
    :ivar allowed_tools: ``allowed-tools`` as a tuple (``allowed_tools`` wins when both given).
    :ivar argument_hint, model, license, compatibility, when_to_use: as in frontmatter.
    :ivar user_invocable: default True. :ivar disable_model_invocation: default False.
    :ivar arguments: names for ``$name`` substitution.
    :ivar metadata: the ``metadata`` map.
    :ivar extra: other frontmatter keys, kept verbatim.
    :ivar follow_links: files are read following links (user-scope skills, design §5).
    :ivar max_file_bytes: per-file byte limit (admin skills: 524,288), None for no limit.
    """

    kind: Literal["skill"] = "skill"
    display_name: str = ""
    directory: str
    allowed_tools: tuple[str, ...] | None = None
    argument_hint: str | None = None
    user_invocable: bool = True
    disable_model_invocation: bool = False
    model: str | None = None
    license: str | None = None
    compatibility: str | None = None
    when_to_use: str | None = None
    arguments: tuple[str, ...] = ()
    metadata: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    follow_links: bool = False
    max_file_bytes: int | None = None

    @property
    def slug(self) -> str:
        """The folder name (same as :attr:`name`)."""
        return self.name

    def content_digest(self) -> str:
        """Hex SHA-256 of the whole ``SKILL.md`` as it is now (discovery hashed only
        the frontmatter it read): what a session records for the skill and compares
        on resume, so an edited body is drift. Read through safe file access within
        the skill's byte limit and cached by the file's ``stat`` signature (one
        ``stat`` per later call). A file that cannot be read now gives the
        discovery digest, which differs from any recorded whole-file digest of a
        body that was longer than its frontmatter.
        """
        return file_digest(self.provenance.source_root, self.provenance.path, self.follow_links,
                           self.max_file_bytes, self.provenance.sha256)

    @property
    def skill_file(self) -> Path:
        """Absolute path of ``SKILL.md``."""
        return self.provenance.absolute_path
