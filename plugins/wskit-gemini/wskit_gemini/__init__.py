"""wskit-gemini: Gemini CLI conventions for wskit, through public hookspecs only.

What it adds (reference/conventions.md §3; docs/gemini.md):

- ``.gemini/`` user and project folders as resource sources (skills under
  ``skills/<name>/SKILL.md``, subagents under ``agents/*.md``, TOML commands
  under ``commands/**/*.toml``), ranked just below ``.agents/`` of the same
  scope (Gemini: ``.agents/skills`` wins within a tier);
- extensions (``gemini-extension.json``) as namespaced content plugins, and
  the resource kind ``gemini_extension`` describing each one;
- ``GEMINI.md`` memory in the rule catalog (``wsctl rules``);
- ``~/.gemini/trustedFolders.json`` as a trust source when the host sets
  ``settings["gemini_trusted_folders"]``;
- ``wsctl gemini memory``: the memory of a folder, assembled as Gemini does.

Imports of the submodules happen inside the hooks, so registering the plugin
costs almost nothing (``wsctl plugins --timings``).
"""

from __future__ import annotations

import os

import wskit
from wskit.kinds import ResourceKind
from wskit.util.deferred import folders_present, idle_unless

__version__ = "0.1.0"

#: Ranks of the ``.gemini`` folders: just below ``.agents`` (10 user, 20 project).
USER_RANK, PROJECT_RANK = 9, 19
#: Kinds read from ``.gemini`` folders. Their ``settings.json`` holds Gemini's own
#: ``mcpServers`` and ``hooks`` schemas, which wskit's Claude-style settings
#: loaders would misread, so MCP servers, LSP servers and hooks are not read there.
FOLDER_KINDS = frozenset({"skill", "command", "agent"})


def applies(profile) -> bool:
    """Whether Gemini's conventions are on for ``profile``: for host ``gemini``, for wskit's
    cross-tool union (host ``wskit`` and hosts that are not reproduced), and where the
    profile asks (``settings["gemini_conventions"]``); never for the reproduced hosts
    ``claude``, ``codex`` and ``opencode``, which do not read ``GEMINI.md`` or ``.gemini/``."""
    if profile is None:
        return True
    family = getattr(profile, "family", None)
    return family in (None, "gemini") or bool((profile.settings or {}).get("gemini_conventions"))


#: The label prefix of an extension's source (:meth:`wskit_gemini.extensions.Extension.source`).
EXTENSION_LABEL_PREFIX = "gemini-extension:"


def is_extension_source(source) -> bool:
    """True for a source made by :meth:`wskit_gemini.extensions.Extension.source`."""
    return source.scope is wskit.Scope.PLUGIN and source.label.startswith(EXTENSION_LABEL_PREFIX)


# What the plugin reads, declared here so that a workspace without it imports none of the
# readers (``wskit.util.deferred``'s idle declarations, as the built-ins declare theirs):
# ``commands/`` of a ``.gemini`` folder, ``extensions/`` of the home's and the project's.
_TOML_COMMANDS_HERE = folders_present(ResourceKind(name="command", default_dir="commands"))
_EXTENSIONS_HERE = folders_present(ResourceKind(name="gemini_extension", default_dir="extensions"))


def extensions_present(home, project) -> bool:
    """Whether :func:`wskit_gemini.extensions.find_extensions` ``(home, project)`` may find an
    extension or report a problem: something stands at ``.gemini/extensions`` of the home or
    of ``project`` (None: the home only), or that ``.gemini`` is a link. Otherwise it finds
    nothing and reports nothing (a missing folder is no problem), which is the idle answer.
    Each look is noted (:func:`wskit.util.deferred.folders_present`): a cached load goes stale
    when the folder appears."""
    for scope, base in (("user", str(home)), *((("project", str(project)),) if project is not None else ())):
        if _EXTENSIONS_HERE(wskit.ResourceSource(scope=scope, root=os.path.join(base, ".gemini"), base=base)):
            return True
    return False


def _toml_commands_present(source) -> bool:
    """Whether :func:`wskit_gemini.commands.load_toml_commands` may find something in
    ``source``: an extension's (or any plugin's) source, a source naming its own folders,
    or a ``commands`` entry in it (a missing folder gives an empty result, no diagnostic)."""
    return bool(source.components) or _TOML_COMMANDS_HERE(source)


_load_toml_commands = idle_unless("wskit_gemini.commands:load_toml_commands", _toml_commands_present)


def _gemini_dirs_builtin(profile) -> bool:
    """Host ``gemini``: the built-in ``sources`` plugin already reads ``.gemini/``."""
    return profile.host_dir == ".gemini"


@wskit.hookimpl
def wskit_resource_sources(binding, profile, trust):
    """``~/.gemini`` (links followed) and, for a trusted project, ``<project>/.gemini``
    (skills, TOML and markdown commands, agents: :data:`FOLDER_KINDS`)."""
    if _gemini_dirs_builtin(profile) or not applies(profile):
        return []
    home = profile.require_home()
    out = [wskit.ResourceSource(scope="user", root=str(home / ".gemini"), base=str(home), rank=USER_RANK,
                                label="user:.gemini", follow_links=True, kinds=FOLDER_KINDS)]
    if trust.trusted:
        root = binding.source_root
        out.append(wskit.ResourceSource(scope="project", root=str(root / ".gemini"), base=str(root),
                                        rank=PROJECT_RANK, label="project:.gemini", kinds=FOLDER_KINDS))
    return out


@wskit.hookimpl
def wskit_plugin_bundles(binding, profile, trust):
    """One plugin-scope source per Gemini extension (project ones only when trusted)."""
    if not applies(profile):
        return []
    home, project = profile.require_home(), binding.source_root if trust.trusted else None
    if not extensions_present(home, project):
        return []
    from .extensions import find_extensions

    exts, diags = find_extensions(home, project)
    return [e.source(profile.name) for e in exts] + diags


@wskit.hookimpl
def wskit_resource_kinds():
    from .kind import extension_kind

    return [extension_kind()]


@wskit.hookimpl
def wskit_load_commands(source):
    """TOML commands of ``.gemini`` folders and of extensions."""
    from pathlib import Path

    if not (is_extension_source(source) or (source.plugin is None and Path(source.root).name == ".gemini")):
        return None
    return _load_toml_commands(source)


@wskit.hookimpl
def wskit_expand_command(command, args, root):
    """Gemini TOML commands (``extra["format"] == "gemini-toml"``) through
    :func:`wskit_gemini.expansion.expand_toml_command` (``{{args}}`` is the raw
    argument text: the words joined as a shell would quote them)."""
    from .commands import FORMAT

    if (getattr(command, "extra", None) or {}).get("format") != FORMAT:
        return None
    import shlex

    from .expansion import expand_toml_command

    return expand_toml_command(command, shlex.join(args), None, root=root)


@wskit.hookimpl
def wskit_discover_rules(source, catalog_root, profile, folders):
    """``GEMINI.md`` memory files (see :mod:`wskit_gemini.memory`); for a lazy catalog's
    request, those of the folders asked for."""
    if not applies(profile):
        return None
    from .memory import discover_memory

    return discover_memory(source, profile, folders)


@wskit.hookimpl
def wskit_trust_decision(source_root, store, profile):
    """``~/.gemini/trustedFolders.json``, when the host enables it and wskit's store has no decision."""
    if profile is None or not (profile.settings or {}).get("gemini_trusted_folders"):
        return None
    try:
        if store.decide(source_root).state != "unknown":
            return None  # wskit's own decision stands
    except Exception:
        return None  # an unusable store: the built-in trust plugin reports it (fail closed)
    from .trust import gemini_decision

    return gemini_decision(source_root, profile.require_home())


@wskit.hookimpl
def wskit_register_commands(cli):
    """Add ``wsctl gemini`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "gemini", "wskit_gemini.cli:gemini_group", "Gemini CLI conventions (plugin wskit-gemini).")
