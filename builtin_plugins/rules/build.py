"""Building a workspace's :class:`RuleCatalog` through the ``wskit_discover_rules`` hook.

The catalog root is the workspace's source project (for a linked worktree,
the main checkout). Two rule sources are offered to every
``wskit_discover_rules`` implementation: the user home (scope ``user``,
always) and the catalog root (scope ``project``, only when the project is
*trusted*: an untrusted project has no project rule file read at all). An
implementation returns :class:`~wskit.builtin_plugins.rules.model.RuleFile` objects,
:class:`~wskit.models.Diagnostic` objects, or a :class:`~wskit.models.LoadResult`
of them; anything else is a ``bad-contribution`` diagnostic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.fs.names import undecodable
from wskit.models import Diagnostic, LoadResult, ResourceSource, Scope

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile

__all__ = ["build_catalog", "rule_sources"]


def rule_sources(root: Path, profile, trusted: bool) -> list[ResourceSource]:
    """The user source (home, links followed) and, when trusted, the project source.

    A home or project folder whose path holds a byte that is not UTF-8 gives no
    source (its rules could not be named in ids, JSON or a session file; the
    workspace loader reports it once as ``name-not-utf8``)."""
    home = profile.require_home()
    out = []
    if undecodable(str(home)) is None:
        out.append(ResourceSource(scope=Scope.USER, root=str(home), base=str(home), label="user:rules",
                                  follow_links=True))
    if trusted and undecodable(str(root)) is None:
        out.append(ResourceSource(scope=Scope.PROJECT, root=str(root), base=str(root), rank=20, label="project:rules"))
    return out


def _flatten(value: Any):
    if isinstance(value, LoadResult):
        yield from value.resources
        yield from value.diagnostics
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _flatten(v)
    else:
        yield value


def build_catalog(hooks, binding, profile, trust) -> RuleCatalog:
    """Run ``wskit_discover_rules`` for the rule sources of a workspace and index the result.

    :param hooks: :class:`~wskit.plugin.facade.WskitHooks`.
    :param binding: the workspace binding; its ``source_root`` is the catalog root.
    :param profile: host profile bound to a home; ``settings["rules"]`` configures the catalog.
    :param trust: the workspace's :class:`~wskit.trust.TrustDecision`.
    :returns: the catalog; every problem is in ``catalog.diagnostics``.
    """
    root = Path(binding.source_root)
    settings, problem = RuleSettings.from_profile(profile)
    diags: list[Diagnostic] = []
    if problem:
        diags.append(Diagnostic(level="error", code="rule-settings-invalid", message=problem))
    rules: list[RuleFile] = []
    for src in rule_sources(root, profile, trust.trusted):
        res = hooks.discover_rules(src, root, profile)
        diags.extend(res.diagnostics)
        for plugin, value in res.values:
            for item in _flatten(value):
                from wskit.resources.rule import RuleFile  # the model class, built by the first rule

                if isinstance(item, RuleFile):
                    rules.append(item)
                elif isinstance(item, Diagnostic):
                    diags.append(item)
                else:
                    diags.append(Diagnostic(level="error", code="bad-contribution", plugin=plugin,
                                            hook="wskit_discover_rules",
                                            message=f"plugin {plugin!r} returned {type(item).__name__} from "
                                            "wskit_discover_rules, expected RuleFile"))
    return RuleCatalog(root, rules, diagnostics=diags, settings=settings, trusted=trust.trusted,
                       home=profile.require_home())
