"""The rule file resource (:class:`RuleFile`): one instruction or rule file the ``rules``
built-in loaded (``wskit_discover_rules`` returns them).

Importing this module builds the model class, so the rules engine imports it only
where a rule file is loaded or named: an empty workspace has none.
"""

# No ``from __future__ import annotations`` here: pydantic would compile and evaluate
# every field's annotation string when the model class is made.

from typing import Any, Literal

from wskit.models import Resource

__all__ = ["KIND", "RuleFile", "RuleSource"]

#: The resource kind of rule files.
KIND = "rule"

#: Where a rule file comes from: the user home, the project, or ``CLAUDE.local.md``.
RuleSource = Literal["user", "project", "local"]


class RuleFile(Resource):
    """One instruction or rule file, loaded, with its imports inlined.

    A :class:`~wskit.models.Resource` of kind ``rule``: ``id`` is
    ``<source>:`` + the first 20 hex digits of SHA-256 of the relative path;
    ``name`` is the relative path; ``provenance.path`` the file relative to
    ``provenance.source_root`` (the catalog root, or the user home for user
    files); ``provenance.sha256`` the rule digest (see :func:`rule_digest`).

    :ivar source: ``user``, ``project`` or ``local`` (``CLAUDE.local.md``).
    :ivar scope_dir: the folder (relative to the catalog root, ``""`` for the
        root; ``""`` for user files) whose subtree the rule covers: the file's
        folder, or the folder holding its ``.claude``/``.<host>`` folder.
    :ivar priority: order inside one scope (see :data:`~wskit.builtin_plugins.rules.model.PRIORITY`).
    :ivar patterns: ``paths`` globs of a conditional rule (empty: unconditional).
    :ivar body: the text delivered to the model (frontmatter removed, trimmed,
        ``@imports`` inlined); never truncated.
    :ivar bytes: UTF-8 size of ``body`` in bytes.
    :ivar imports: files inlined, relative to ``provenance.source_root``.
    :ivar file_kind: ``instruction`` (a memory file) or ``rule`` (rules folder).
    :ivar follow_links: the file was read following links (user scope).
    :ivar activation: ``""`` (static, or by ``patterns``); ``requested``: offered to the
        model by its ``description`` and never delivered by path or at start (a Cursor rule
        with a description and neither ``alwaysApply`` nor ``globs``); ``manual``: only when
        the user names it (a Cursor rule with none of the three).
    """

    kind: str = KIND
    source: RuleSource
    scope_dir: str = ""
    priority: int
    patterns: tuple[str, ...] = ()
    body: str
    bytes: int = 0
    imports: tuple[str, ...] = ()
    file_kind: Literal["instruction", "rule"] = "instruction"
    follow_links: bool = False
    activation: Literal["", "requested", "manual"] = ""

    @property
    def sha256(self) -> str:
        """The rule digest (path, patterns and body, imports included)."""
        return self.provenance.sha256

    @property
    def path(self) -> str:
        """Relative path (to the catalog root; to the home for user files)."""
        return self.provenance.path

    @property
    def conditional(self) -> bool:
        """Not delivered at start: it has ``paths`` patterns or an ``activation``."""
        return bool(self.patterns) or bool(self.activation)

    @property
    def display_path(self) -> str:
        """Path shown to models and users: relative for project files; ``~/…`` for the
        user's own files; absolute for the files above the project root that host
        ``claude`` reads (user-source files based at the filesystem root)."""
        if self.source != "user":
            return self.path
        return f"/{self.path}" if self.provenance.source_root in ("/", "\\") else f"~/{self.path}"

    def sort_key(self) -> tuple[int, int, int, str]:
        """Definition order: user first, then scope depth, priority, path (later = more specific)."""
        depth = 0 if not self.scope_dir else self.scope_dir.count("/") + 1
        return (0 if self.source == "user" else 1, depth, self.priority, self.path)

    def rule_ref(self) -> dict[str, Any]:
        """The persisted reference: ``{"id", "path", "source", "sha256"}`` (never the body)."""
        return {"id": self.id, "path": self.path, "source": self.source, "sha256": self.sha256}

    def to_ref_json(self) -> dict[str, Any]:
        """The ``wsctl rules --json`` ref: id, path, scope_dir, source, priority, conditional, sha256, bytes."""
        return {
            "id": self.id, "path": self.display_path, "scope_dir": self.scope_dir, "source": self.source,
            "priority": self.priority, "conditional": self.conditional, "sha256": self.sha256,
            "bytes": self.bytes,
        }
