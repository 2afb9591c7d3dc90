"""Host profiles: which conventions a host adds on top of the cross-tool ones (design §3)."""


from pathlib import Path

from wskit.models import Frozen
from wskit.util.lazyre import lazy_pattern
from wskit.values.plainmodel import Field, field_validator, model_validator

__all__ = ["HOST_PRESETS", "HostProfile"]


_NAME = lazy_pattern(globals(), "_NAME", r"^[a-z][a-z0-9_-]{0,31}\Z")


#: The hosts wskit reproduces (docs/compatibility.md): for these names the profile loads
#: what that host loads, not the cross-tool union. The two convention flags default to
#: what the host reads (``.agents/skills`` is on for Codex, Gemini CLI, opencode, GitHub
#: Copilot CLI and Cursor, ``AGENTS.md`` files for Codex, opencode, Copilot and Cursor;
#: ``.claude/`` for Claude Code and opencode — Copilot and Cursor read some ``.claude`` folders
#: through their own tables); the file names and folders each reads are the rule catalog's and
#: the sources plugin's host tables.
HOST_PRESETS: dict[str, dict[str, bool]] = {
    "claude": {"claude_conventions": True, "agents_conventions": False},
    "codex": {"claude_conventions": False, "agents_conventions": True},
    "gemini": {"claude_conventions": False, "agents_conventions": True},
    "opencode": {"claude_conventions": True, "agents_conventions": True},
    # Copilot and Cursor read .claude/skills (and Copilot .claude/agents, .claude/rules) through
    # their host tables, but no Claude settings, hooks, plugins or ~/.claude.json: the flag is off
    "copilot": {"claude_conventions": False, "agents_conventions": True},
    "cursor": {"claude_conventions": False, "agents_conventions": True},
}


class HostProfile(Frozen):
    """The integrating host's name and the conventions it switches on or off.

    ``HostProfile(name="blade")`` adds the host folder ``.blade/``, the
    instruction file ``BLADE.md``, the user folder ``~/.blade/``, the plugin
    manifest folder ``.blade-plugin/`` and the env prefix ``BLADE_``. The
    cross-tool conventions (``.claude/``, ``.agents/``, ``AGENTS.md``…) are on
    for every host; each can be switched off with its flag.

    The names ``claude``, ``codex``, ``gemini``, ``opencode``, ``copilot`` (GitHub Copilot
    CLI) and ``cursor`` are host profiles
    (:data:`HOST_PRESETS`): they load what that host loads, with its own home folders
    and none it does not read (docs/compatibility.md); :attr:`family` says which.

    :ivar name: lowercase host name (``[a-z][a-z0-9_-]{0,31}``).
    :ivar home: the user home, a parameter everywhere (never read implicitly by
        loaders); ``None`` only for a profile contributed by a plugin before the
        caller binds it with :meth:`with_home`.
    :ivar claude_conventions: read ``.claude/`` folders and ``CLAUDE.md`` files.
    :ivar agents_conventions: read ``.agents/`` folders and ``AGENTS.md`` files.
    :ivar reserved_names: names the host keeps for itself (e.g. subagent types).
    :ivar settings: free-form host settings (``skills_enabled``, …).
    """

    name: str = "wskit"
    home: Path | None = None
    claude_conventions: bool = True
    agents_conventions: bool = True
    reserved_names: frozenset[str] = frozenset()
    settings: dict[str, object] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _check_name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"invalid host name {v!r}: use lowercase letters, digits, '-' or '_'")
        return v

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, data):
        if isinstance(data, dict) and data.get("name") in HOST_PRESETS:
            data = {**HOST_PRESETS[data["name"]], **data}
        return data

    @property
    def family(self) -> str | None:
        """The reproduced host (``claude``, ``codex``, ``gemini``, ``opencode``, ``copilot``,
        ``cursor``), or None
        for wskit's own cross-tool union (host ``wskit`` and any other name)."""
        return self.name if self.name in HOST_PRESETS else None

    @property
    def host_dir(self) -> str:
        """The host's own folder name, e.g. ``.blade``."""
        return f".{self.name}"

    @property
    def instruction_file(self) -> str:
        """The host's own instruction file, e.g. ``BLADE.md``."""
        return f"{self.name.upper()}.md"

    @property
    def plugin_manifest_dir(self) -> str:
        """The host's plugin manifest folder, e.g. ``.blade-plugin``."""
        return f".{self.name}-plugin"

    @property
    def env_prefix(self) -> str:
        """Environment-variable prefix, e.g. ``BLADE_``."""
        return self.name.upper().replace("-", "_") + "_"

    def with_home(self, home: str | Path) -> "HostProfile":
        """A copy bound to ``home`` (absolute, user-expanded)."""
        return self.model_copy(update={"home": Path(home).expanduser().absolute()})

    def require_home(self) -> Path:
        """The bound home.

        :raises ValueError: when the profile has no home (design: the home is a parameter).
        """
        if self.home is None:
            raise ValueError(f"host profile {self.name!r} has no home; pass home=... (never implied)")
        return self.home

    @property
    def state_dir(self) -> Path:
        """wskit's own per-user state folder, ``<home>/.wskit``, shared by every
        wskit-based host (trust store, manifests, ledgers)."""
        return self.require_home() / ".wskit"
