"""Skills at use time: the ``skills_enabled`` switch, file listings, bodies, arguments.

Follows Sakura's ``use_skill`` (reference/holon-sakura.md B2, B3) and Blade's
lazy body loading (reference/blade.md §9.5):

- the switch ``skills_enabled`` is read from ``HostProfile.settings`` *fresh*
  on every call; ``True``/``False``, the strings ``true``/``false``/``1``/``0``
  and the ints 0/1 are accepted, anything else means off (fail closed); unset
  means on. Off: :meth:`SkillRuntime.list` is empty, bodies cannot be read and
  the content cache is dropped;
- bodies are read at use time (a session snapshot freezes metadata only), always
  from disk, through safe file access (no absolute paths, ``..``, dot-components,
  links — except in user-scope skills —, hard links or special files);
- the content cache is keyed by the SHA-256 of the raw bytes, so a file
  rewritten with the same size and mtime still returns its new content;
  ``cached`` is True only when the bytes of ``[skill, file, args]`` are unchanged;
- arguments are substituted as plain text (never template execution) by
  :mod:`wskit.formats.argsubst`, the code commands use: in ``SKILL.md`` Claude Code's
  ``$ARGUMENTS``, 0-based ``$ARGUMENTS[N]``/``$N``, declared ``$name`` and the
  ``ARGUMENTS:`` line appended to a body where no placeholder was replaced; in the skill's
  other files only ``$ARGUMENTS`` and declared names (Sakura);
- re-reading ``SKILL.md`` re-parses its ``allowed-tools``: the restriction of a
  load is the discovered clause *and* the current one, so an edit only narrows.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from wskit import fs
from wskit.builtin_plugins.skills.switch import _FALSE, _TRUE, skills_enabled, skills_filter  # noqa: F401 (public here)
from wskit.errors import WskitError
from wskit.fs.names import shown_path, undecodable
from wskit.models import sha256_hex
from wskit.values import FrozenValue, Value, field

if TYPE_CHECKING:  # imported where used (`inspect` of a workspace with no skills never needs it)
    from wskit.resources.skill import Skill


#: Folders skipped by :meth:`SkillRuntime.list_files`.
SCAN_SKIP = frozenset({"node_modules", "__pycache__", ".git"})


class SkillError(WskitError):
    """A skill operation failed. ``code`` is ``SKILLS_DISABLED``, ``SKILL_NOT_FOUND``,
    ``SKILL_CONTENT_REJECTED`` or ``SKILL_METADATA_REJECTED`` (Sakura B3)."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"{message} [{code}]")


def substitute(text: str, args: str | list[str] | None, names: tuple[str, ...] = (), *,
               skill_md: bool = True) -> str:
    """Substitute ``args`` into a skill file's text: :func:`wskit.formats.argsubst.render`
    (Claude Code's rules, shared with commands). For ``SKILL.md`` (``skill_md``)
    all of them, including ``ARGUMENTS: <value>`` appended when no placeholder
    was replaced; for the skill's other files Sakura's rule only (``$ARGUMENTS``
    and declared names; ``$N`` stays, nothing is appended). Plain text, never
    template execution; never raises."""
    from wskit.formats.argsubst import render

    return render(text, args, names, indexed=skill_md, append=skill_md)


class SkillContent(FrozenValue):
    """One read of a skill file (Sakura B3 output fields).

    :ivar content: the text (for ``SKILL.md``: the body after frontmatter), arguments substituted.
    :ivar content_hash: hex SHA-256 of the raw bytes read.
    :ivar cached: the same bytes were returned for the same ``[skill, file, args]`` before.
    :ivar clauses: allowed-tools clauses of this load (discovered, then current
        frontmatter); each a tuple of selector texts. Empty: no restriction.
    """

    slug: str
    name: str
    description: str
    when_to_use: str | None
    file: str
    content: str
    content_hash: str
    cached: bool
    clauses: tuple[tuple[str, ...], ...] = ()
    arguments: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = {"slug": self.slug, "name": self.name, "description": self.description,
               "when_to_use": self.when_to_use, "file": self.file, "content": self.content,
               "content_hash": self.content_hash, "cached": self.cached}
        if self.clauses:
            out["allowed_tools"] = sorted({s for c in self.clauses for s in c})
        if self.arguments:
            out["arguments"] = list(self.arguments)
        return out


#: decoded texts a :class:`SkillRuntime` keeps (one per file version read)
MAX_TEXTS = 256
#: (skill, file, arguments) deliveries a :class:`SkillRuntime` remembers for
#: :attr:`SkillContent.cached`; an older one reads as not delivered (``cached`` False)
MAX_DELIVERIES = 256


def _remember(cache: "OrderedDict[Any, str]", key: Any, value: str, limit: int) -> None:
    """Put ``key`` last in ``cache`` and drop the least recently used past ``limit``."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > limit:
        cache.popitem(last=False)


class SkillRuntime(Value):
    """Skills of a workspace or session at use time.

    :param resources: a :class:`~wskit.workspace.WorkspaceResources` or
        :class:`~wskit.session.SessionResources` (anything with ``registry(kind)``).
    :param profile: the host profile whose ``settings`` hold ``skills_enabled``.
    """

    resources: Any
    profile: Any
    #: decoded file texts by digest, the most recently used :data:`MAX_TEXTS`
    _texts: OrderedDict[str, str] = field(default_factory=OrderedDict, repr=False)
    #: (skill id, file, digest of the arguments) -> the digest last delivered, the most
    #: recently used :data:`MAX_DELIVERIES`: the arguments come from the caller (an MCP
    #: client of ``wsctl serve``), so neither they nor one key per distinct value are kept
    _last: OrderedDict[tuple[str, str, str], str] = field(default_factory=OrderedDict, repr=False)

    def enabled(self) -> bool:
        """The switch, read now; when off the content cache is dropped."""
        on = skills_enabled(self.profile)
        if not on:
            self._texts.clear()
            self._last.clear()
        return on

    def list(self) -> list[Skill]:
        """Active skills (empty when the switch is off)."""
        if not self.enabled():
            return []
        return list(self.resources.registry("skill").active())

    def get(self, name: str) -> Skill:
        """Resolve a skill by slug, id or ``<plugin>:<slug>``.

        :raises SkillError: ``SKILLS_DISABLED`` or ``SKILL_NOT_FOUND``.
        """
        if not self.enabled():
            raise SkillError("SKILLS_DISABLED", "skills are disabled (skills_enabled is off)")
        found = self.resources.registry("skill").find(name)
        if found is None:
            from wskit.errors import nearest

            close = nearest(name, self.resources.registry("skill").ids())
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            err = SkillError("SKILL_NOT_FOUND", f"unknown skill {name!r}{hint}")
            err.searched_hint = True
            raise err
        return found  # type: ignore[return-value]

    def _skill(self, skill: Skill | str) -> Skill:
        return self.get(skill) if isinstance(skill, str) else skill

    def list_files(self, skill: Skill | str) -> dict[str, Any]:
        """Regular files of the skill folder, recursively, relative and sorted; reads no file.

        Dot-names and :data:`SCAN_SKIP` folders are left out; links are not
        followed (user-scope skills excepted): a link, and a FIFO, socket or
        device, is listed under ``skipped`` with its reason instead of vanishing.

        :returns: ``{"slug", "name", "files", "file_count", "has_attachments",
            "skipped": [{"path", "reason": "symlink" | "special-file" | "name-not-utf8"}]}``
            (a name that is not UTF-8, a file or a folder, is shown with ``\\xNN``
            and never descended into; :meth:`read` refuses it, ``path-not-utf8``).
        :raises SkillError: as :meth:`get`.
        """
        sk = self._skill(skill)
        if not self.enabled():
            raise SkillError("SKILLS_DISABLED", "skills are disabled (skills_enabled is off)")
        base = sk.provenance.source_root
        top = sk.provenance.path.rsplit("/", 1)[0]
        files: list[str] = []
        skipped: list[dict[str, str]] = []
        stack = [""]
        while stack:
            sub = stack.pop()
            try:
                entries = fs.scan_dir(base, f"{top}/{sub}" if sub else top, follow_links=sk.follow_links)
            except fs.SafeFsError:
                continue
            for e in entries:
                if e.name.startswith(".") or e.name in SCAN_SKIP:
                    continue
                rel = f"{sub}/{e.name}" if sub else e.name
                if undecodable(e.name) is not None:  # no prompt, JSON or read(file=…) can name it
                    skipped.append({"path": shown_path(rel), "reason": "name-not-utf8"})
                elif e.type == "dir":
                    stack.append(rel)
                elif e.type == "file":
                    files.append(rel)
                else:  # never read through: said, not dropped in silence
                    skipped.append({"path": rel, "reason": "symlink" if e.type == "link" else "special-file"})
        files.sort()
        skipped.sort(key=lambda x: x["path"])
        return {"slug": sk.name, "name": sk.display_name or sk.name, "files": files,
                "file_count": len(files), "has_attachments": len(files) > 1, "skipped": skipped}

    def read(self, skill: Skill | str, file: str = "SKILL.md", args: str | list[str] | None = None) -> SkillContent:
        """Read one file of a skill now, with arguments substituted.

        :param file: relative path inside the skill folder (default ``SKILL.md``).
        :param args: the argument string (or list) for ``$ARGUMENTS`` and named arguments.
        :raises SkillError: ``SKILLS_DISABLED``, ``SKILL_NOT_FOUND``,
            ``SKILL_CONTENT_REJECTED`` (unsafe path, link, special file, over the
            byte limit — the admin skills' 512 KiB, else the host setting
            ``max_read_bytes`` or :func:`wskit.fs.read_limit`'s 8 MiB —, not UTF-8
            text, unparseable frontmatter) or
            ``SKILL_METADATA_REJECTED`` (current ``allowed-tools`` invalid).
        """
        sk = self._skill(skill)
        if not self.enabled():
            raise SkillError("SKILLS_DISABLED", "skills are disabled (skills_enabled is off)")
        try:
            parts = fs.split_written(file)
        except fs.SafeFsError as err:
            raise SkillError("SKILL_CONTENT_REJECTED", str(err)) from None
        if any(p.startswith(".") for p in parts):
            raise SkillError("SKILL_CONTENT_REJECTED", f"{file}: dot-components are not allowed")
        rel_file = "/".join(parts)
        top = sk.provenance.path.rsplit("/", 1)[0]
        limit = fs.read_limit(getattr(self.profile, "settings", None))
        if sk.max_file_bytes is not None:
            limit = min(limit, sk.max_file_bytes)
        try:
            res = fs.read_bytes(sk.provenance.source_root, f"{top}/{rel_file}",
                                max_bytes=limit, follow_links=sk.follow_links)
        except fs.SafeFsError as err:
            # a SKILL.md linked to a file inside the project is read from its resolved path,
            # as discovery loaded it; any other link stays refused
            target = None
            if err.code == "symlink" and rel_file == "SKILL.md" and not sk.follow_links:
                target, _shown, _why = fs.inside_target(sk.provenance.source_root, f"{top}/{rel_file}")
            if target is None:
                raise SkillError("SKILL_CONTENT_REJECTED", str(err)) from None
            try:
                res = fs.read_bytes(sk.provenance.source_root, target, max_bytes=limit)
            except fs.SafeFsError as err2:
                raise SkillError("SKILL_CONTENT_REJECTED", str(err2)) from None
        digest = sha256_hex(res.raw)
        text = self._texts.get(digest)
        if text is None:
            try:
                text = fs.decode_text(res.raw, res.path)
            except fs.SafeFsError as err:
                raise SkillError("SKILL_CONTENT_REJECTED", f"{err} (skill files are read as text only)") from None
        _remember(self._texts, digest, text, MAX_TEXTS)
        clauses: list[tuple[str, ...]] = []
        if sk.allowed_tools is not None:
            clauses.append(tuple(sk.allowed_tools))
        if rel_file == "SKILL.md":
            from wskit.builtin_plugins.skills.tools import SelectorError, parse_selectors
            from wskit.formats.frontmatter import parse_frontmatter  # lazily: PyYAML, only to read a skill

            fm = parse_frontmatter(text, res.path)
            # no frontmatter, or one that does not parse: no fields, as discovery read it (Claude Code 2.1.332)
            data = fm.data if fm.present and fm.ok else {}
            current = data["allowed_tools"] if "allowed_tools" in data else data.get("allowed-tools")
            try:
                sels = parse_selectors(current)
            except SelectorError as err:
                raise SkillError("SKILL_METADATA_REJECTED", f"{res.path}: {err}") from None
            if sels is not None and tuple(s.text for s in sels) not in clauses:
                clauses.append(tuple(s.text for s in sels))
            body = fm.body
        else:
            body = text
        key_args = args if isinstance(args, str) or args is None else "\x00".join(args)
        key = (sk.id, rel_file, sha256_hex(key_args.encode("utf-8", "surrogatepass")) if key_args else "")
        cached = self._last.get(key) == digest
        _remember(self._last, key, digest, MAX_DELIVERIES)
        return SkillContent(
            slug=sk.name, name=sk.display_name or sk.name, description=sk.description,
            when_to_use=sk.when_to_use, file=rel_file, content=substitute(body, args, sk.arguments, skill_md=rel_file == "SKILL.md"),
            content_hash=digest, cached=cached, clauses=tuple(clauses), arguments=sk.arguments,
        )
