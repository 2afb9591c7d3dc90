"""Hook specifications of wskit (design §6). No logic lives here.

Every hook is prefixed ``wskit_``. Unless marked *firstresult*, pluggy gathers
the non-None return values of every implementation into a list. Built-ins are
registered after entry-point plugins, so (pluggy being LIFO) built-ins run
first and third-party results come after them; built-in fallbacks of
firstresult hooks are ``trylast`` so any plugin can override them.

While resources are being resolved, an implementation that raises is isolated:
its error becomes a ``hook-failed`` diagnostic naming the plugin and the hook,
and the results of the other implementations stand (see
:class:`wskit.plugin.facade.WskitHooks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wskit.plugin import hookspec

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    import click

    from wskit.binding import Binding
    from wskit.host import HostProfile
    from wskit.kinds import ResourceKind
    from wskit.models import LoadResult, Resource, ResourceSource
    from wskit.resources.command import Expansion
    from wskit.resources.style import Style
    from wskit.session import SessionResources
    from wskit.session.components import SessionComponent
    from wskit.trust import TrustDecision, TrustStore
    from wskit.workspace import WorkspaceResources

__all__ = [
    "wskit_builtin_styles",
    "wskit_discover_rules",
    "wskit_expand_command",
    "wskit_export",
    "wskit_hook_definitions",
    "wskit_hook_trust",
    "wskit_host_profiles",
    "wskit_load_agents",
    "wskit_load_commands",
    "wskit_load_skills",
    "wskit_load_styles",
    "wskit_lsp_servers",
    "wskit_mcp_servers",
    "wskit_plugin_bundles",
    "wskit_register_commands",
    "wskit_resource_kinds",
    "wskit_resource_sources",
    "wskit_session_components",
    "wskit_session_created",
    "wskit_session_services",
    "wskit_trust_decision",
    "wskit_workspace_catalogs",
]


# ---- Host and trust: who the host is and whether a project may contribute ------------------


@hookspec
def wskit_host_profiles() -> list["HostProfile"]:
    """Host profiles this plugin knows, so ``wsctl --host NAME`` can use them.

    When: once, when ``wsctl`` or an integrator looks up a host by name.

    :returns: a list of :class:`~wskit.host.HostProfile` (without ``home``), or None.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def wskit_trust_decision(
    source_root: "Path", store: "TrustStore", profile: "HostProfile"
) -> "TrustDecision | None":
    """Decide whether a source project is trusted (the trust gate).

    When: once per workspace load, before any source is listed.

    :param source_root: canonical path of the source project (for a worktree,
        the main checkout).
    :param store: the user's :class:`~wskit.trust.TrustStore`.
    :param profile: the host profile, bound to the user home (a trust source
        may be switched on by a host setting, e.g. ``settings["gemini_trusted_folders"]``);
        None when a caller has no profile.
    :returns: a :class:`~wskit.trust.TrustDecision`, or None to let the next
        implementation decide. Stops at first non-None result. The built-in
        ``trust`` plugin answers last from the store.

    .. versionadded:: 0.1
    """


# ---- Sources and kinds: where resources come from and what kinds there are -----------------


@hookspec
def wskit_resource_sources(
    binding: "Binding", profile: "HostProfile", trust: "TrustDecision"
) -> list["ResourceSource"]:
    """Folders that hold resources for this workspace.

    When: once per workspace load, after the trust gate.

    :param binding: the workspace :class:`~wskit.binding.Binding`.
    :param profile: the host profile, bound to the user home.
    :param trust: the trust decision; project and local sources must only be
        returned when ``trust.trusted`` (the loader drops them otherwise,
        with a diagnostic).
    :returns: a list of :class:`~wskit.models.ResourceSource`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_plugin_bundles(
    binding: "Binding", profile: "HostProfile", trust: "TrustDecision", kinds: "tuple[ResourceKind, ...]"
) -> list["ResourceSource"]:
    """Content plugins (bundles with a manifest) found for this workspace.

    When: once per workspace load, after :func:`wskit_resource_sources`.

    :param kinds: the workspace's resource kinds (:func:`wskit_resource_kinds`);
        a manifest's component keys are their
        :attr:`~wskit.kinds.ResourceKind.manifest_keys`
        (:func:`wskit.kinds.manifest_table`), so a source's ``components`` can
        name the folders of every registered kind.

    :returns: plugin-scope :class:`~wskit.models.ResourceSource` objects (one
        per active bundle, ``plugin`` set) whose resources are namespaced
        ``plugin:<plugin>:<name>``; :class:`~wskit.models.Diagnostic` items may
        be mixed in (plugins that failed to load, with path and reason).

    .. versionadded:: 0.1
    """


@hookspec
def wskit_resource_kinds() -> list["ResourceKind"]:
    """Resource kinds a plugin adds (or the built-in kinds).

    When: once per workspace load, before sources are read.

    :returns: a list of :class:`~wskit.kinds.ResourceKind`; each names the
        hook (or a callable) that loads it from a source. A kind named twice
        keeps the first registration and the second is a ``duplicate-kind``
        diagnostic.

    .. versionadded:: 0.1
    """


# ---- Loaders: one call per source for each kind (and the rule files) -----------------------


@hookspec
def wskit_load_skills(source: "ResourceSource") -> "LoadResult | None":
    """Skills a source holds (metadata only: bodies are read at use time).

    When: once per source per workspace load.

    :returns: a :class:`~wskit.models.LoadResult` of :class:`~wskit.resources.skill.Skill`
        resources and diagnostics, or None when the plugin has nothing to add.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_load_commands(source: "ResourceSource") -> "LoadResult | None":
    """Custom commands a source holds. Same contract as :func:`wskit_load_skills`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_load_agents(source: "ResourceSource") -> "LoadResult | None":
    """Subagent definitions a source holds. Same contract as :func:`wskit_load_skills`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_load_styles(source: "ResourceSource") -> "LoadResult | None":
    """Output styles a source holds. Same contract as :func:`wskit_load_skills`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_builtin_styles() -> "list[Style] | None":
    """Built-in output styles the host offers (reference/blade.md §3.6).

    When: each time a style catalog is built (:class:`wskit.builtin_plugins.styles.catalog.StyleCatalog`).

    :returns: a list of :class:`~wskit.resources.style.Style` made with
        :func:`wskit.resources.style.builtin_style` (ids without a
        ``user:``/``project:``/``plugin:`` prefix), or None.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_mcp_servers(source: "ResourceSource") -> "LoadResult | None":
    """MCP server definitions a source holds. Same contract as :func:`wskit_load_skills`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_lsp_servers(source: "ResourceSource") -> "LoadResult | None":
    """LSP server definitions a source holds. Same contract as :func:`wskit_load_skills`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_hook_definitions(source: "ResourceSource") -> "LoadResult | None":
    """Hook configurations a source holds. Same contract as :func:`wskit_load_skills`.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_discover_rules(source: "ResourceSource", catalog_root: "Path", profile: "HostProfile",
                         folders: Any) -> list[Any]:
    """Rule and instruction files a source holds.

    When: while the rule catalog is built for a workspace (once for the user
    home, scope ``user``; for the catalog root, scope ``project``, only
    when the project is trusted). The catalog is lazy (docs/rules.md, "Lazy catalog"):
    an implementation that takes ``folders`` is asked for the project's rules folder
    chain by folder chain, when a query first needs them; one that does not is asked
    once for the whole project.

    :param source: the source to look in.
    :param catalog_root: the repository root rules are matched relative to.
    :param profile: the host profile (host folder and file names, ``settings["rules"]``).
    :param folders: None (the whole source), or for the project source a
        :class:`~wskit.builtin_plugins.rules.lazy.FolderRequest`: return the rules whose
        ``scope_dir`` is one of ``folders.folders`` (catalog-relative folders, each one's
        ancestors asked before or in the same request); ``folders.memo`` is a dictionary
        kept for the catalog's lifetime, for the implementation's walk state. A rule
        returned again by a later request (same id) is kept once.
    :returns: a list of :class:`~wskit.builtin_plugins.rules.model.RuleFile` and
        :class:`~wskit.models.Diagnostic` objects, or a LoadResult of them.

    .. versionadded:: 0.1
    """


# ---- Catalogs: indexes built over a loaded workspace ---------------------------------------


@hookspec
def wskit_workspace_catalogs(workspace: "WorkspaceResources") -> dict[str, Any] | None:
    """Catalogs (indexes that are not registries) a plugin builds for a workspace.

    When: once per workspace load, before content plugins are read (their
    manifests name folders by the kinds' :attr:`~wskit.kinds.ResourceKind.manifest_keys`).

    :param workspace: the :class:`~wskit.workspace.WorkspaceResources` being
        loaded (registries, trust, profile and hooks set).
    :returns: ``{name: catalog}``; a catalog may carry ``diagnostics``, which
        are added to the workspace's. The built-in ``rules`` plugin returns
        ``{"rules": RuleCatalog}``. A name given twice keeps the first.

    .. versionadded:: 0.1
    """


# ---- Sessions: what a snapshot carries and what its runtime starts -------------------------


@hookspec
def wskit_session_created(session: "SessionResources") -> None:
    """Notification after :func:`wskit.session.snapshot` made a session.

    When: once per snapshot (and per :meth:`~wskit.session.SessionResources.child`).

    :param session: the new, immutable :class:`~wskit.session.SessionResources`.
    :returns: nothing; return values are ignored.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_session_components() -> list["SessionComponent"]:
    """Per-session components a plugin attaches to sessions (the ``rules`` built-in's
    invocation barrier and delivery bookkeeping).

    When: the first time a session is asked for a component it has not made
    (:meth:`~wskit.session.SessionResources.component`), before a session state is
    written (pinned components) and when a state is restored.

    :returns: a list of :class:`~wskit.session.components.SessionComponent`: the name,
        ``create(session)``, and how a recorded value is checked and resumed. The first
        plugin naming a component wins.

    .. versionadded:: 0.1
    """


@hookspec
def wskit_session_services() -> list[tuple[str, Any]]:
    """Live services a plugin offers to sessions (``mcp``, ``lsp``…).

    When: the first time a session's runtime is asked for a service it has not started.

    :returns: ``[(name, factory)]``; ``factory(runtime)`` gets the
        :class:`~wskit.session.runtime.SessionRuntime` and returns an object
        with a ``close()`` method, called when the session closes. The first
        plugin naming a service wins.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def wskit_hook_trust(session: "SessionResources") -> Any:
    """The hook trust of a session (where the digest approval of hook configurations plugs in).

    When: once per session runtime, when its hook runner is first built.

    :param session: the :class:`~wskit.session.SessionResources`.
    :returns: an object with ``state(hook) -> str`` (``trusted``, ``not_required``,
        ``untrusted``, ``modified``, ``disabled``, ``error``) and ``digest() -> str | None``,
        or None to leave it to the next plugin; with no answer the runtime uses
        :class:`~wskit.builtin_plugins.hooks.runner.ScopeHookTrust` (project, local and plugin hooks untrusted).

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def wskit_expand_command(command: "Resource", args: "list[str]", root: "str | None") -> "Expansion | None":
    """Expand a custom command whose format a plugin owns (Gemini's TOML commands).

    When: ``wsctl commands render`` (and a host's own rendering through
    :meth:`~wskit.plugin.facade.WskitHooks.expand_command`). The built-in ``commands``
    plugin implements it ``trylast`` with wskit's markdown expansion
    (:func:`wskit.builtin_plugins.commands.expand.expand`), the answer when every other
    plugin returns None.

    :param command: the :class:`~wskit.resources.command.Command`; a plugin answers
        only for its own format (e.g. ``command.extra["format"]``).
    :param args: the arguments as typed, one per word.
    :param root: the execution root ``@path`` is resolved in; shell embeds are never run here.
    :returns: a :class:`wskit.resources.command.Expansion`, or None to leave the command to others.

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def wskit_export(workspace: "WorkspaceResources", targets: "list[str]", options: "dict[str, Any]") -> Any:
    """Write each target host's own files from a loaded workspace (docs/export.md).

    When: :func:`wskit.plugin.export.export` (``wskit.export``). The built-in ``export`` plugin
    implements it ``trylast``; a plugin may answer first for a workspace it exports itself.

    :param workspace: the workspace loaded under the source host profile (``--from``).
    :param targets: target names (``codex``, ``gemini``, ``opencode``, ``copilot``, ``cursor``,
        ``claude``, ``agents``).
    :param options: ``source``, ``dry_run``, ``force``, ``prune``, ``check``, ``verify``.
    :returns: an ``ExportReport`` (:mod:`wskit.builtin_plugins.export`), or None to leave it
        to the next plugin.

    .. versionadded:: 0.1
    """


# ---- CLI: wsctl sub-commands ---------------------------------------------------------------


@hookspec
def wskit_register_commands(cli: "click.Group") -> None:
    """Add ``wsctl`` sub-commands.

    When: once, when ``wsctl`` first needs its command list (never for
    ``wsctl --version``).

    :param cli: the root :class:`click.Group`; call ``cli.add_command(...)``, or
        :func:`wskit.cli.lazy.add_lazy_command` to import the command only when
        it is used (every ``wsctl`` run calls this hook).
    :returns: nothing.

    .. versionadded:: 0.1
    """
