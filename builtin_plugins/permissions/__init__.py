"""Built-in plugin ``permissions``: Claude Code's permission rules
(``permissions.allow|ask|deny`` with ``Tool(specifier)`` rules, ``defaultMode``,
``additionalDirectories``) read from the managed, user, project, local and invocation
settings layers, and ``wsctl permissions list|check``.

- ``wskit_workspace_catalogs`` gives each workspace ``{"permissions": PermissionPolicy}``
  (frozen into every session snapshot, like the rule catalog);
- ``wskit_session_components`` gives each session its ``permissions`` component
  (:class:`SessionPermissions`), behind ``session.check_permission(tool, input)``.

Matching is :mod:`wskit.builtin_plugins.permissions.rules`, layering and decisions
:mod:`wskit.builtin_plugins.permissions.policy`; see docs/permissions.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wskit.plugin import hookimpl

if TYPE_CHECKING:
    from wskit.builtin_plugins.permissions.policy import PermissionDecision, PermissionPolicy
    from wskit.builtin_plugins.permissions.rules import PermissionRule

__all__ = [
    "PermissionDecision", "PermissionPolicy", "PermissionRule", "SessionPermissions", "build_policy",
    "wskit_register_commands", "wskit_session_components", "wskit_workspace_catalogs",
]

# the tool groups of the rules and the modes (Claude Code's tool names), here so that the
# policy decides by mode without importing the rule engine (``rules`` re-exports them)
#: Tools a ``Read(...)`` rule covers (Claude Code: all built-in file-reading tools).
READ_TOOLS = frozenset({"Read", "Grep", "Glob", "LS", "NotebookRead"})
#: Tools an ``Edit(...)`` rule covers (Claude Code: all built-in file-editing tools).
EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
#: Tools whose input is a shell command.
SHELL_TOOLS = frozenset({"Bash", "PowerShell"})


def __getattr__(name: str) -> Any:  # PEP 562: the engine's classes, imported when first named
    if name == "PermissionRule":
        from wskit.builtin_plugins.permissions.rules import PermissionRule

        return PermissionRule
    if name in ("PermissionDecision", "PermissionPolicy"):
        from wskit.builtin_plugins.permissions import policy

        return getattr(policy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_policy(binding, profile, trust) -> PermissionPolicy:
    """The :class:`PermissionPolicy` of the workspace ``binding`` names (None: user,
    invocation and managed layers only) under ``profile`` and ``trust``."""
    from wskit.builtin_plugins.permissions.policy import policy_from_layers
    from wskit.formats.settings import settings_layers

    layers, diags = settings_layers(binding, profile, trust)
    managed = [d for d in diags if d.code == "managed-settings-invalid"]
    project = str(binding.source_root) if binding is not None else str(profile.require_home())
    policy = policy_from_layers(layers, project=project, home=str(profile.require_home()),
                                managed_error=f"{managed[0].path}: {managed[0].message}" if managed else None)
    # an untrusted project's settings files are not read: each is named, so the user sees
    # why its rules are absent
    unread = [d for d in diags if d.code == "settings-untrusted"]
    if managed or unread:
        policy = policy.copy_with(diagnostics=tuple(managed) + tuple(unread) + policy.diagnostics)
    return policy


class SessionPermissions:
    """The ``permissions`` component of one session: its frozen policy plus the rules the
    host adds while it runs (``allow_for_session``).

    :ivar policy: the :class:`PermissionPolicy` in force.
    """

    def __init__(self, session) -> None:
        self._session = session
        policy = session.catalogs.get("permissions") if session.catalogs else None
        if policy is None:  # a session made without the pipeline: user and invocation layers
            profile = session.profile
            if profile is not None and profile.home is not None:
                policy = build_policy(session.binding, profile, session.trust)
            else:
                from wskit.builtin_plugins.permissions.policy import PermissionPolicy

                policy = PermissionPolicy(project=str(session.binding.source_root))
        self.policy: PermissionPolicy = policy

    def check(self, tool: str, tool_input: Any = None, *, hook: Any = None) -> PermissionDecision:
        """``policy.check`` with the session's cwd (see :meth:`PermissionPolicy.check`)."""
        return self.policy.check(tool, tool_input, cwd=str(self._session.binding.cwd), hook=hook)

    def allow_for_session(self, *rules: str, behavior: str = "allow") -> None:
        """Add rules for the rest of this session (the user answered "always allow"); they
        are not written to any settings file.

        :raises RuleSyntaxError: a rule cannot be read."""
        self.policy = self.policy.with_rules(**{behavior: rules})


@hookimpl
def wskit_workspace_catalogs(workspace):
    """``{"permissions": PermissionPolicy}`` for the workspace."""
    if workspace.profile is None or workspace.profile.home is None:
        return None
    import functools

    from wskit.util import partial_reload

    # a reload takes the policy whole when the settings layers it read did not change
    return {"permissions": partial_reload.stage(
        ("catalog", "permissions"), (workspace.binding, workspace.profile, workspace.trust),
        functools.partial(build_policy, workspace.binding, workspace.profile, workspace.trust))}


@hookimpl
def wskit_session_components():
    """The ``permissions`` session component (:class:`SessionPermissions`); it records nothing
    in the session state (the rules are settings, read again on resume)."""
    from wskit.session.components import SessionComponent

    return [SessionComponent(name="permissions", create=SessionPermissions)]


@hookimpl
def wskit_register_commands(cli):
    """Add ``permissions`` to ``wsctl`` (imported when used)."""
    from wskit.cli.lazy import add_lazy_command

    add_lazy_command(cli, "permissions", "wskit.builtin_plugins.permissions.cli:permissions_group",
                     "Permission rules (allow, ask, deny) and what they decide for a tool call.")
