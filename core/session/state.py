"""The serialisable session state (:class:`SessionState`, with :class:`ResourceRef` and
:class:`WorkspaceRef`): pydantic models, validated when read back. Imported when first
named through :mod:`wskit.session` (``from wskit.session import SessionState``), so that a
process that never writes or reads a state does not import pydantic."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from wskit.errors import SessionStateError
from wskit.fs import SafeFsError, jsonsafe
from wskit.session import STATE_FORMAT, STATE_MAX_DEPTH
from wskit.trust import TrustState

if TYPE_CHECKING:  # pragma: no cover
    from wskit.session import SessionResources


class ResourceRef(BaseModel):
    """A reference to a resource: kind, id, scope, path (relative to
    ``source_root``), source_root, plugin and sha256 — no body."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: str
    id: str
    name: str
    scope: str
    source_root: str
    path: str
    plugin: str | None = None
    sha256: str


class WorkspaceRef(BaseModel):
    """The binding of a session: source project, execution root, cwd, host."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    source_root: str
    execution_root: str
    cwd: str
    host: str


class SessionState(BaseModel):
    """Serialisable session state (JSON), references and digests only.

    :ivar format: :data:`STATE_FORMAT`; a larger value is refused, and so is a value
        that is not a JSON integer (``"1"``, ``true``, ``1.0``: not coerced) or is
        below 1 (formats start at 1).
    :ivar trust: the trust state at snapshot time, one of
        :data:`~wskit.trust.TrustState` (``trusted``, ``untrusted``, ``unknown``).
    :ivar extensions: per-capability state (rules delivered, workflows…),
        keyed by capability name; values must be JSON.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    format: StrictInt = Field(default=STATE_FORMAT, ge=1)
    session_id: str
    parent_id: str | None = None
    created_at: str
    workspace: WorkspaceRef
    trust: TrustState
    resources: tuple[ResourceRef, ...] = ()
    extensions: dict[str, Any] = {}

    def to_json(self, indent: int | None = 2) -> str:
        """The JSON text of this state.

        :raises SessionStateError: a value cannot be written as UTF-8 text (a
            path holding bytes that are not UTF-8: the loaders refuse such names,
            so only a caller-built state or a project folder named so gets here).
        """
        try:
            return self.model_dump_json(indent=indent)
        except (ValueError, UnicodeError) as err:  # PydanticSerializationError is a ValueError
            from wskit.fs.names import first_undecodable, shown_path

            where = first_undecodable(self.model_dump())
            if where is None:
                raise SessionStateError(f"session state cannot be written as JSON: {err}") from None
            field, text, bad_byte = where
            raise SessionStateError(f"session state cannot be written as JSON: {field} = '{shown_path(text)}' "
                                    f"holds the byte {bad_byte}, which is not UTF-8") from None

    @classmethod
    def from_json(cls, text: str | bytes, path: str | None = None) -> "SessionState":
        """Parse a state written by :meth:`to_json`.

        :param path: the file the text came from, named in errors (``<path>: …``).
        :raises SessionStateError: malformed JSON, a missing or wrong field
            (named; ``format`` and ``resources`` must be present, as
            :meth:`to_json` always writes them; ``format`` must be a JSON
            integer ≥ 1, never coerced from ``"1"`` or ``true``; ``trust`` one of
            ``trusted``, ``untrusted``, ``unknown``), or a format newer than
            :data:`STATE_FORMAT`.
        """

        def fail(message: str) -> SessionStateError:
            return SessionStateError(f"{path}: {message}" if path else message)

        try:
            # depth-bounded: json.loads raises RecursionError on deep nesting
            raw = jsonsafe.loads(text, max_depth=STATE_MAX_DEPTH, path=path)
        except SafeFsError as err:
            # jsonsafe's message names the file already
            raise SessionStateError(f"session state is not JSON: {err.args[0]}") from None
        if not isinstance(raw, dict):
            raise fail("session state must be a JSON object")
        if "format" not in raw:  # to_json always writes it; a default would hide a foreign file
            raise fail("session state field 'format': Field required")
        fmt = raw["format"]
        if type(fmt) is not int:  # noqa: E721 -- bool is an int subclass
            # checked before the version test, which "99" or true would pass, coerced to a number
            raise fail(f"session state field 'format': must be an integer, got {json.dumps(fmt)}")
        if fmt < 1:  # 0 and -1 name no format: refused, not verified
            raise fail(f"session state field 'format': must be at least 1, got {fmt}")
        if fmt > STATE_FORMAT:
            raise fail(f"session state format {fmt} is newer than this wskit understands ({STATE_FORMAT}); upgrade wskit")
        if "resources" not in raw:  # a default for building states, not for reading one
            raise fail("session state field 'resources': Field required")
        try:
            return cls.model_validate(raw)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "<root>"
            raise fail(f"session state field {where!r}: {first['msg']}") from None

    def drift(self, session: "SessionResources") -> list[dict[str, str]]:
        """Compare the recorded resources with ``session`` (or a fresh snapshot).

        :returns: ``[{"id", "kind", "change", "path"}]`` with change ``changed``
            (the digest of the resource's file differs:
            :meth:`~wskit.models.Resource.content_digest`, for a skill its whole
            ``SKILL.md``), ``missing`` (gone) or ``added`` (new), sorted; ``path``
            names the file.
        """
        current = {(r.kind, r.id): r for r in session.resources()}
        was = {(r.kind, r.id): r for r in self.resources}
        out = []
        for key, ref in was.items():
            path = f"{ref.source_root}/{ref.path}"
            if key not in current:
                out.append({"kind": key[0], "id": key[1], "change": "missing", "path": path})
            elif current[key].content_digest() != ref.sha256:
                out.append({"kind": key[0], "id": key[1], "change": "changed",
                            "path": str(current[key].provenance.absolute_path)})
        for key in current.keys() - was.keys():
            out.append({"kind": key[0], "id": key[1], "change": "added",
                        "path": str(current[key].provenance.absolute_path)})
        return sorted(out, key=lambda d: (d["kind"], d["id"]))
