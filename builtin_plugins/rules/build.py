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

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from wskit import changes
from wskit.builtin_plugins.rules.catalog import RuleCatalog
from wskit.builtin_plugins.rules.model import RuleSettings
from wskit.fs.names import undecodable
from wskit.models import Diagnostic, ResourceSource, Scope
from wskit.util import partial_reload

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile


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


def build_catalog(hooks, binding, profile, trust):
    """Run ``wskit_discover_rules`` for the rule sources of a workspace and index the result.

    For a trusted project the catalog is a
    :class:`~wskit.builtin_plugins.rules.lazy.LazyRuleCatalog`: the user source and the
    implementations that do not take ``folders`` are asked now, the project's folders when
    a query first needs them. An untrusted project, or settings with ``max_files`` (a cap
    counted over the whole project's files in walk order), or a load inside
    :func:`wskit.changes.whole_project` (``wsctl inspect``: the whole project is read anyway)
    get the eager :class:`RuleCatalog` of everything read now.

    :param hooks: :class:`~wskit.plugin.facade.WskitHooks`.
    :param binding: the workspace binding; its ``source_root`` is the catalog root.
    :param profile: host profile bound to a home; ``settings["rules"]`` configures the catalog.
    :param trust: the workspace's :class:`~wskit.trust.TrustDecision`.
    :returns: the catalog; every problem is in ``catalog.diagnostics``.
    """
    from wskit.builtin_plugins.rules.lazy import LazyRuleCatalog, collect

    root = Path(binding.source_root)
    settings, problem = RuleSettings.from_profile(profile)
    diags: list[Diagnostic] = []
    if problem:
        diags.append(Diagnostic(level="error", code="rule-settings-invalid", message=problem))
    rules: list[RuleFile] = []
    project = None
    lazy = settings.max_files is None and not changes.whole_project_wanted()
    for src in rule_sources(root, profile, trust.trusted):
        # the eager part is a stage a reload takes whole when nothing it read changed
        # (wskit.util.partial_reload); the lazy catalog's folder requests are not
        if src.scope == Scope.PROJECT and lazy:
            project = src
            collect(partial_reload.stage(("rules", src.scope, src.root, "eager"), (src, root, profile),
                                         functools.partial(hooks.discover_rules, src, root, profile, lazy=False)),
                    rules, diags)
            continue
        if src.scope == Scope.PROJECT:
            # the whole project, read now (``wsctl inspect``): not a stage, its walk is the
            # load's shared one (and a stage's own recording would note every path twice)
            collect(hooks.discover_rules(src, root, profile), rules, diags)
            continue
        collect(partial_reload.stage(("rules", src.scope, src.root, "all"), (src, root, profile),
                                     functools.partial(hooks.discover_rules, src, root, profile)), rules, diags)
    home = profile.require_home()
    if project is not None:
        return LazyRuleCatalog(str(root), hooks, project, profile, rules=rules, diagnostics=diags,
                               settings=settings, home=str(home))
    return RuleCatalog(root, rules, diagnostics=diags, settings=settings, trusted=trust.trusted, home=home)
