"""Values of the rule catalog: rule files, settings, selections and errors.

The file set, priorities, ids and digests follow reference/blade.md §4.5 with
the file set of docs/rules.md §1 (``AGENTS.md``/``AGENTS.override.md`` from Codex,
``.<host>/`` folders, user-level files first).
"""


import json
from typing import TYPE_CHECKING, Any, Literal

from wskit.errors import ProvenanceMismatchError, WskitError
from wskit.models import Frozen
from wskit.util.digest import sha256_hex
from wskit.values import FrozenValue
from wskit.values.plainmodel import Field

if TYPE_CHECKING:  # pragma: no cover
    from wskit.resources.rule import RuleFile

#: ``json.dumps``'s escaping of one string with ``ensure_ascii=False`` (its C version when built)
_encode_str = json.encoder.encode_basestring


#: The resource kind of rule files (the value of :data:`wskit.resources.rule.KIND`, which
#: this module does not import: that would build the RuleFile model on every start-up).
KIND = "rule"

#: Priorities inside one scope directory, lowest (least specific) first.
PRIORITY: dict[str, int] = {
    ".github/copilot-instructions.md": 5,  # GitHub Copilot's own file, first in each folder
    "CLAUDE.md": 10,
    ".claude/CLAUDE.md": 20,
    "AGENTS.md": 30,  # also Codex fallback file names (only when no AGENTS.md/override)
    "CONTEXT.md": 35,  # opencode's third name
    "AGENTS.override.md": 40,
    ".<host>/AGENTS.md": 50,
    ".<host>/AGENTS.override.md": 55,  # user level only (Codex's ~/.codex/AGENTS.override.md)
    "<HOST>.md": 60,
    ".claude/rules": 70,
    ".<host>/rules": 80,
    "CLAUDE.local.md": 90,
    "opencode.json": 95,  # the files opencode.json's "instructions" name
}

#: :data:`wskit.resources.rule.RuleSource`, spelled again for the same reason.
RuleSource = Literal["user", "project", "local"]


def __getattr__(name: str) -> Any:
    """:class:`~wskit.resources.rule.RuleFile`, imported (its model class built) on first
    use: a workspace without rule files never needs it (PEP 562)."""
    if name == "RuleFile":
        from wskit.resources.rule import RuleFile

        globals()["RuleFile"] = RuleFile  # for get_type_hints of the value classes below
        return RuleFile
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RuleSettings(Frozen):
    """Settings of the rule catalog, read from ``HostProfile.settings["rules"]``.

    Defaults follow design §5 (no caps but a per-file size limit);
    :meth:`blade_preset` gives Blade's limits (reference/blade.md §4.1).

    :ivar max_file_bytes: larger files are skipped with a ``too-large`` diagnostic (bytes; default 1 MiB).
    :ivar max_files: at most this many rule files; later ones (walk order) are
        skipped with ``rule-file-limit`` (None: no cap).
    :ivar max_depth: folder levels walked below the catalog root (None: no cap).
    :ivar max_patterns: ``paths`` entries per rule (None: no cap).
    :ivar max_pattern_length: characters per pattern (None: no cap).
    :ivar static_budget: default byte budget of :meth:`RuleCatalog.static_rules` in sessions (None: none).
    :ivar contextual_budget: default byte budget of contextual queries in sessions (None: none).
    :ivar fallback_filenames: Codex's ``project_doc_fallback_filenames``:
        names read in a folder that has neither ``AGENTS.md`` nor ``AGENTS.override.md``.
    :ivar project_root_markers: Codex's ``project_root_markers``, used by
        ``wsctl rules`` to find the project (default ``.git``).
    :ivar honour_gitignore: skip what ``.gitignore`` files ignore (default True).
    :ivar extra_skip_dirs: more folder names never walked.
    :ivar invocation_policy: default barrier policy of sessions: ``writes`` or ``batch``.
    :ivar first_name_wins: groups of instruction-file names; of the project files on the
        chain to the cwd, only those of the first group with any file are delivered
        (opencode's ``AGENTS.md`` > ``CLAUDE.md`` > ``CONTEXT.md``; Claude Code's
        ``CLAUDE.md`` before ``AGENTS.md``); the others are skipped as ``shadowed``.
    :ivar nearest_first: static answers list project files nearest the cwd first (opencode).
    :ivar user_last: static answers list user files after project files (opencode).
    :ivar ancestor_files: also read the instruction files of every folder above the
        project root (Claude Code; :mod:`wskit.builtin_plugins.rules.ancestors`);
        ``"without-repository"``: only when the project root holds no ``.git`` (opencode,
        whose upward walk stops at the git worktree and otherwise goes to the filesystem root).
    :ivar exact_byte_budget: Codex CLI's ``project_doc_max_bytes`` reproduced byte for byte
        (bytes; None, the default: off). The project files of a static answer share this
        budget root first; each is cut at the byte where the budget runs out (the cut bytes
        decoded as UTF-8 with replacement, as Codex does), files after it are skipped as
        ``over-budget``, a blank file costs nothing; user files are outside it (Codex keeps
        ``~/.codex/AGENTS.md`` apart). Unlike Codex, every cut is reported: the file is
        listed in ``skipped`` with reason ``cut`` and the bytes dropped. For a host that
        needs Codex's prompt exactly: ``settings["rules"]["exact_byte_budget"] = 32768``.
    :ivar imports: inline ``@path`` imports (:mod:`wskit.builtin_plugins.rules.imports`;
        default True, as Claude Code and Gemini CLI do). Off for hosts ``codex`` and
        ``opencode``, which deliver an ``@path`` line as written (recorded conformance
        case ``imports``).
    :ivar repository_boundary: a folder holding a ``.git`` entry (a git submodule's ``.git``
        file, a nested repository) between the catalog root and the cwd ends the chain of
        static project instruction files there: files of folders above it are skipped as
        ``outside-repository``. On for hosts ``codex``, ``gemini`` and ``opencode``, which
        walk up only to the nearest repository root (recorded case ``git-submodule``).
    :ivar copilot_order: GitHub Copilot CLI 1.0.102's static answer (recorded cases of host
        ``copilot``): the user's files; ``.github/copilot-instructions.md`` of the root and of
        the cwd; the other instruction files of the root, then of the cwd; then the folders
        between, nearest the cwd first, each with its ``.github/copilot-instructions.md``
        first; then the rules trees (``.github/instructions``, ``.claude/rules``) of the root
        and of the cwd only (those of folders between are skipped as ``not-root-or-cwd``);
        a file whose text equals an earlier one's is skipped as ``identical``.
    :ivar import_depth: ``@path`` import hops allowed (None: Claude Code's 4; GitHub Copilot
        CLI 1.0.102 followed a chain of eight, recorded case ``imports``: 16 for ``copilot``).
    :ivar imports_skip: file names whose ``@path`` lines are delivered as written (GitHub
        Copilot CLI 1.0.102 expands imports in ``AGENTS.md`` and ``CLAUDE.md``, not in
        ``GEMINI.md``: recorded case ``imports``).
    :ivar string_path_order: Gemini CLI 0.61.0's order reproduced: the project files of a
        static answer sorted by their paths as strings (user files first, unchanged). Off by
        default, for every host: string sorting puts ``a-b/`` before ``a/`` and splits one
        folder's files (docs/compatibility.md); for a host that needs Gemini's prompt exactly
        (recorded case ``gemini-file-names``).
    """

    max_file_bytes: int | None = 1024 * 1024
    max_files: int | None = None
    max_depth: int | None = None
    max_patterns: int | None = None
    max_pattern_length: int | None = None
    static_budget: int | None = None
    contextual_budget: int | None = None
    fallback_filenames: tuple[str, ...] = ()
    project_root_markers: tuple[str, ...] = (".git",)
    honour_gitignore: bool = True
    extra_skip_dirs: tuple[str, ...] = Field(default=())
    invocation_policy: Literal["writes", "batch"] = "writes"
    first_name_wins: tuple[tuple[str, ...], ...] = ()
    nearest_first: bool = False
    user_last: bool = False
    ancestor_files: bool | Literal["without-repository"] = False
    exact_byte_budget: int | None = None
    imports: bool = True
    repository_boundary: bool = False
    string_path_order: bool = False
    copilot_order: bool = False
    import_depth: int | None = None
    imports_skip: tuple[str, ...] = ()

    @classmethod
    def blade_preset(cls, **overrides: Any) -> "RuleSettings":
        """Blade's limits: 32 KiB per file, 128 files, depth 24, 16 patterns of
        at most 256 characters, budgets 48 KiB static and 32 KiB contextual."""
        values: dict[str, Any] = dict(
            max_file_bytes=32 * 1024, max_files=128, max_depth=24, max_patterns=16,
            max_pattern_length=256, static_budget=48 * 1024, contextual_budget=32 * 1024,
        )
        values.update(overrides)
        return cls(**values)

    @classmethod
    def defaults(cls) -> "RuleSettings":
        """``cls()``: for :class:`RuleSettings` itself one shared instance made without
        validation (the defaults are stored as given either way), so a profile
        without rule settings does not build the model's validator."""
        if cls is not RuleSettings:
            return cls()
        made = _DEFAULTS.get(cls)
        if made is None:
            from wskit.models import construct_valid

            names = tuple(cls.model_fields)
            values = {n: f.get_default(call_default_factory=True) for n, f in cls.model_fields.items()}
            made = _DEFAULTS.setdefault(cls, construct_valid(cls, values, frozenset(names)))
        return made

    @classmethod
    def from_profile(cls, profile: Any) -> tuple["RuleSettings", str | None]:
        """Settings from ``profile.settings["rules"]`` (a mapping; ``preset: blade`` allowed).

        :returns: the settings and an error message when the mapping was invalid
            (the defaults are then used).
        """
        raw = (getattr(profile, "settings", None) or {}).get("rules")
        host = HOST_RULES.get(getattr(profile, "family", None) or "")
        if getattr(profile, "family", None) == "codex" and not (isinstance(raw, dict) and "fallback_filenames" in raw):
            names = codex_fallback_filenames(getattr(profile, "home", None))
            if names:
                host = {**host, "fallback_filenames": names}
        if getattr(profile, "family", None) == "codex" and not (isinstance(raw, dict) and "exact_byte_budget" in raw):
            limit = codex_max_bytes(getattr(profile, "home", None))
            if limit is not None:
                host = {**host, "exact_byte_budget": limit}
        if host is not None:
            if isinstance(raw, RuleSettings):
                return raw, None
            raw = {**host, **(raw if isinstance(raw, dict) else {})} if raw is None or isinstance(raw, dict) else raw
        if raw is None:
            return cls.defaults(), None
        if isinstance(raw, RuleSettings):
            return raw, None
        if not isinstance(raw, dict):
            return cls(), f"settings 'rules' must be a mapping, not {type(raw).__name__}"
        data = dict(raw)
        preset = data.pop("preset", None)
        try:
            if preset == "blade":
                return cls.blade_preset(**data), None
            if preset not in (None, "default"):
                return cls(), f"unknown rules preset {preset!r}"
            return cls(**data), None
        except Exception as err:  # pydantic.ValidationError
            return cls(), f"invalid rules settings: {err}"


def _codex_config(home: Any) -> dict:
    """``<home>/.codex/config.toml`` as a mapping (``{}`` when absent, unreadable, over 1 MiB
    or not TOML)."""
    if home is None:
        return {}
    from pathlib import Path

    from wskit import fs

    try:
        res = fs.read_bytes(str(Path(home) / ".codex"), "config.toml", max_bytes=1 << 20, follow_links=True)
        text = res.raw.decode("utf-8")
    except (fs.SafeFsError, UnicodeDecodeError):
        return {}
    import tomllib  # imported when a codex profile has a config file: not on start-up

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def codex_max_bytes(home: Any) -> int | None:
    """``project_doc_max_bytes`` of ``<home>/.codex/config.toml`` (a positive integer), as
    Codex CLI 0.171.0 reads it (recorded case ``codex-max-bytes``), or None. When the user
    set it, ``--host codex`` applies it exactly (``RuleSettings.exact_byte_budget``); without
    it wskit keeps whole files (docs/compatibility.md, ``budget``)."""
    value = _codex_config(home).get("project_doc_max_bytes")
    return value if type(value) is int and value > 0 else None


def codex_fallback_filenames(home: Any) -> tuple[str, ...]:
    """``project_doc_fallback_filenames`` of ``<home>/.codex/config.toml``, as Codex CLI 0.171.0
    reads it (the user's own configuration; recorded conformance case ``fallback-names``), or
    ``()`` when there is no home, no file, or no such list of strings. A file that does not
    parse gives ``()`` here; Codex itself refuses to start on it."""
    if home is None:
        return ()
    from pathlib import Path

    path = Path(home) / ".codex" / "config.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    import tomllib  # imported when a codex profile has a config file: not on start-up

    try:
        value = tomllib.loads(text).get("project_doc_fallback_filenames")
    except tomllib.TOMLDecodeError:
        return ()
    if not isinstance(value, list):
        return ()
    # a name, never a path: "../x" or "a/b" would reach outside the folder it is read in
    return tuple(v for v in value if isinstance(v, str) and v not in ("", ".", "..") and "/" not in v
                 and "\\" not in v and "\0" not in v)


#: The rule settings of each reproduced host (:attr:`wskit.host.HostProfile.family`), under
#: what the profile's own ``settings["rules"]`` says (docs/compatibility.md).
HOST_RULES: dict[str, dict[str, Any]] = {
    "claude": {"first_name_wins": (("CLAUDE.md", "CLAUDE.local.md"), ("AGENTS.md",)), "ancestor_files": True},
    "codex": {"imports": False, "repository_boundary": True},
    "gemini": {"repository_boundary": True},
    "opencode": {"first_name_wins": (("AGENTS.md",), ("CLAUDE.md",), ("CONTEXT.md",)),
                 "nearest_first": True, "ancestor_files": "without-repository", "imports": False,
                 "repository_boundary": True},
    "copilot": {"copilot_order": True, "import_depth": 16, "imports_skip": ("GEMINI.md",),
                "repository_boundary": True},
    "cursor": {"imports": False},
}


#: :meth:`RuleSettings.defaults`, made once
_DEFAULTS: dict[type, RuleSettings] = {}


class SkippedRule(FrozenValue):
    """A rule a query selected but did not deliver: ``reason`` says why (``over-budget``,
    or ``inlined``: another rule of the answer delivers its text through an ``@import``).
    Immutable; a plain class, so start-up compiles nothing (see :mod:`wskit.values`)."""

    __slots__ = ("__weakref__",)
    rule: "RuleFile"
    reason: str
    detail: str

    def __init__(self, rule: "RuleFile", reason: str, detail: str = "") -> None:
        _set = object.__setattr__
        _set(self, "rule", rule)
        _set(self, "reason", reason)
        _set(self, "detail", detail)

    def to_json(self) -> dict[str, str]:
        return {"path": self.rule.display_path, "id": self.rule.id, "reason": self.reason, "detail": self.detail}


class RuleSelection(FrozenValue):
    """The answer of a catalog query; false when it selected no file, its length is the
    number of files. Immutable; a plain class, so start-up compiles nothing (see
    :mod:`wskit.values`).

    :ivar kind: ``static`` or ``contextual``.
    :ivar files: the selected rules, definition order (whole files only).
    :ivar skipped: rules that applied but did not fit the budget.
    :ivar trigger_paths: catalog-relative targets that triggered a contextual query.
    :ivar budget: the byte budget applied (None: none).
    :ivar diagnostics: diagnostics of the query.
    """

    __slots__ = ("__weakref__",)
    kind: Literal["static", "contextual"]
    files: "tuple[RuleFile, ...]"
    skipped: tuple[SkippedRule, ...]
    trigger_paths: tuple[str, ...]
    budget: int | None
    diagnostics: tuple[Any, ...]

    def __init__(self, kind: Literal["static", "contextual"], files: "tuple[RuleFile, ...]" = (),
                 skipped: tuple[SkippedRule, ...] = (), trigger_paths: tuple[str, ...] = (),
                 budget: int | None = None, diagnostics: tuple[Any, ...] = ()) -> None:
        _set = object.__setattr__
        _set(self, "kind", kind)
        _set(self, "files", files)
        _set(self, "skipped", skipped)
        _set(self, "trigger_paths", trigger_paths)
        _set(self, "budget", budget)
        _set(self, "diagnostics", diagnostics)

    def __bool__(self) -> bool:
        return bool(self.files)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.files)

    @property
    def content_bytes(self) -> int:
        """Sum of the bodies' UTF-8 sizes in bytes."""
        return sum(r.bytes for r in self.files)

    def refs(self) -> list[dict[str, Any]]:
        """Persistable references ``{"id", "path", "source", "sha256"}``."""
        return [r.rule_ref() for r in self.files]

    @property
    def provenance_sha256(self) -> str:
        """SHA-256 of the lines ``<id>:<sha256>`` (Blade's provenanceSha256)."""
        return provenance_digest(self.files)

    def render_text(self) -> str:
        """The tagged text block (see :func:`wskit.builtin_plugins.rules.render.render_text`)."""
        from wskit.builtin_plugins.rules.render import render_text

        return render_text(self)

    def render_json(self) -> dict[str, Any]:
        """The JSON form (see :func:`wskit.builtin_plugins.rules.render.render_json`)."""
        from wskit.builtin_plugins.rules.render import render_json

        return render_json(self)


class RuleProvenanceMismatch(ProvenanceMismatchError):
    """Persisted rule references no longer match the catalog (policy ``strict``); a
    :class:`~wskit.errors.ProvenanceMismatchError`.

    Matches Blade's fail-closed ``Project rule provenance mismatch`` (reference/blade.md §4.11, §6.2).

    :ivar drift: ``[{"id", "path", "source", "change"}]`` with change
        ``changed``, ``moved`` or ``missing`` (or ``static-changed``).
    :ivar paths: the paths concerned.
    """

    def __init__(self, drift: list[dict[str, Any]], what: str = "rule") -> None:
        listing = ", ".join(f"{d['path']} ({d['change']})" for d in drift)
        super().__init__(drift, f"project {what} provenance mismatch: {listing}")


class RuleQueryError(WskitError):
    """A rule query was asked about a folder outside the catalog root."""


def rule_id(source: str, rel_path: str) -> str:
    """``<source>:`` + the first 20 hex digits of SHA-256 of ``rel_path``."""
    return f"{source}:{sha256_hex(rel_path.encode('utf-8'))[:20]}"


def rule_digest(rel_path: str, patterns: tuple[str, ...], body: str) -> str:
    """SHA-256 of the JSON ``{"content", "path", "patterns"}``: binds path, patterns and body.

    The JSON text is exactly ``json.dumps(..., sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)``'s, put together from the encoder's own string escaping (no
    encoder object per call: a new process restoring 350 rules from the persistent
    index computes 350 digests). :raises UnicodeEncodeError: a lone surrogate in a string."""
    esc = _encode_str
    doc = (f'{{"content":{esc(body)},"path":{esc(rel_path)},"patterns":[{",".join(map(esc, patterns))}]}}')
    return sha256_hex(doc.encode("utf-8"))


def provenance_digest(rules: Any) -> str:
    """SHA-256 of ``<id>:<sha256>`` lines joined by ``\\n`` (empty: SHA-256 of ``b""``)."""
    text = "\n".join(f"{r.id}:{r.sha256}" for r in rules)
    return sha256_hex(text.encode("utf-8"))
