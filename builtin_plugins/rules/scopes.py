"""Scope-folder arithmetic and the byte budget of rule selections, used by
:class:`wskit.builtin_plugins.rules.catalog.RuleCatalog` and re-exported there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from wskit.builtin_plugins.rules.model import SkippedRule

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile


def ancestors(rel: str) -> list[str]:
    """``""`` and every prefix folder of ``rel``, ending with ``rel`` itself (``"a/b"`` → ``["", "a", "a/b"]``)."""
    if not rel:
        return [""]
    out = [""]
    i = rel.find("/")
    while i != -1:
        out.append(rel[:i])
        i = rel.find("/", i + 1)
    out.append(rel)
    return out


def is_ancestor(scope: str, rel: str) -> bool:
    """True when folder ``scope`` is ``rel`` or one of its ancestors (``""`` is everyone's)."""
    return scope == "" or rel == scope or rel.startswith(scope + "/")


def relative_to_scope(rel: str, scope: str) -> str:
    """``rel`` made relative to its ancestor folder ``scope``."""
    return rel[len(scope) + 1:] if scope else rel


def apply_budget(rules: Sequence[RuleFile], budget: int | None) -> tuple[list[RuleFile], list[SkippedRule]]:
    """Keep whole files from the most specific end while they fit ``budget`` bytes.

    Iterates from the last rule backwards; a rule whose body (UTF-8 bytes)
    does not fit the remaining budget is skipped with reason ``over-budget``
    and earlier (smaller) ones are still tried (reference/blade.md §4.9).
    Nothing is truncated.
    """
    if budget is None:
        return list(rules), []
    remaining = budget
    kept: list[RuleFile] = []
    skipped: list[SkippedRule] = []
    for r in reversed(rules):
        if r.bytes <= remaining:
            kept.append(r)
            remaining -= r.bytes
        else:
            skipped.append(SkippedRule(r, "over-budget",
                                       f"{r.bytes} bytes do not fit the {remaining} bytes left of a {budget}-byte budget"))
    kept.reverse()
    skipped.reverse()
    return kept, skipped


def cut_exact(rules: Sequence[RuleFile], budget: int) -> tuple[list[RuleFile], list[SkippedRule]]:
    """Codex CLI's ``project_doc_max_bytes``: project files share ``budget`` bytes root first.

    Matches Codex's ``read_project_docs``: each file is read up to the bytes left (the
    cut part decoded as UTF-8 with replacement characters), a file whose text is blank
    is left out and costs nothing, and files after the budget is spent are not read.
    User files pass unchanged and cost nothing. Returns the delivered rules (a cut one
    with its body cut) and the skipped ones: ``cut`` for a shortened file (it is also
    delivered), ``over-budget`` for one left out (reference: docs/compatibility.md, Codex).
    """
    remaining = budget
    kept: list[RuleFile] = []
    skipped: list[SkippedRule] = []
    for r in rules:
        if r.source == "user":
            kept.append(r)
            continue
        if remaining <= 0:
            skipped.append(SkippedRule(r, "over-budget", f"the {budget}-byte budget is spent"))
            continue
        data = r.body.encode("utf-8")
        part = data[:remaining]
        text = part.decode("utf-8", "replace")
        if not text.strip():
            continue
        if len(part) < len(data):
            skipped.append(SkippedRule(r, "cut", f"cut after {len(part)} of {len(data)} bytes: "
                                                 f"{len(data) - len(part)} bytes over the {budget}-byte budget"))
            r = r.model_copy(update={"body": text, "bytes": len(text.encode("utf-8"))})
        kept.append(r)
        remaining -= len(part)
    return kept, skipped


def name_group(rule: RuleFile, groups: Sequence[Sequence[str]]) -> int | None:
    """The index of the ``RuleSettings.first_name_wins`` group ``rule``'s file name is in,
    or None: not an instruction file, a name of no group, or one of the user's own files
    (those never hide project files; files above the project root, priority >= 100, do)."""
    if (rule.source == "user" and rule.priority < 100) or rule.file_kind != "instruction":
        return None
    base = rule.path.rsplit("/", 1)[-1]
    return next((i for i, g in enumerate(groups) if base in g), None)


def repository_folder(root: str, cwd_rel: str) -> str | None:
    """The deepest folder from ``cwd_rel`` up to (not including) the catalog root that holds
    a ``.git`` entry (file or folder), or None."""
    import os

    parts = cwd_rel.split("/") if cwd_rel else []
    for i in range(len(parts), 0, -1):
        folder = "/".join(parts[:i])
        if os.path.lexists(os.path.join(root, folder, ".git")):
            return folder
    return None


def inside_repository(root: str, cwd_rel: str, rules: Sequence[RuleFile]
                      ) -> tuple[list[RuleFile], list[SkippedRule]]:
    """``RuleSettings.repository_boundary``: the deepest folder from ``cwd_rel`` up to (not
    including) the catalog root that holds a ``.git`` entry, file or folder, ends the chain;
    project files of folders above it are skipped as ``outside-repository``. Matches Codex
    CLI 0.171.0, Gemini CLI 0.61.0 and opencode 1.18.33 in a git submodule (recorded case
    ``git-submodule``: only the submodule's own files load), where the catalog root is the
    superproject (:class:`~wskit.binding.Binding` walks past a submodule's ``.git`` file)."""
    boundary = repository_folder(root, cwd_rel)
    if boundary is None:
        return list(rules), []
    keep: list[RuleFile] = []
    skipped: list[SkippedRule] = []
    for r in rules:
        if r.source == "user" or r.scope_dir == boundary or r.scope_dir.startswith(boundary + "/"):
            keep.append(r)
        else:
            skipped.append(SkippedRule(r, "outside-repository", f"{boundary}/.git ends the host's upward walk"))
    return keep, skipped


def host_chain(rules: Sequence[RuleFile], settings) -> tuple[list[RuleFile], list[SkippedRule]]:
    """A static answer as a reproduced host assembles it (``RuleSettings.first_name_wins``,
    ``nearest_first``, ``user_last``): project instruction files of later name groups are
    dropped when an earlier group has any file on the chain (skipped as ``shadowed``), then
    the files are reordered. Matches opencode's and Claude Code's choice between
    ``AGENTS.md`` and ``CLAUDE.md``."""
    skipped: list[SkippedRule] = []
    out = list(rules)
    groups = settings.first_name_wins
    if groups:
        present = [g for g in (name_group(r, groups) for r in out) if g is not None]
        if present:
            first = min(present)
            keep = []
            for r in out:
                g = name_group(r, groups)
                if g is None or g == first:
                    keep.append(r)
                else:
                    skipped.append(SkippedRule(r, "shadowed", f"{groups[first][0]} files are on the chain"))
            out = keep
    if settings.nearest_first or settings.user_last:
        user = [r for r in out if r.source == "user" and r.priority < 100]
        chain = [r for r in out if not (r.source == "user" and r.priority < 100)]  # ancestors, then the project
        if settings.nearest_first:
            chain = _nearest_first(chain)
        out = [*chain, *user] if settings.user_last else [*user, *chain]
    return out, skipped


def _nearest_first(chain: list[RuleFile]) -> list[RuleFile]:
    """Folders from the cwd outwards (project folders deepest first, then ancestors
    innermost first); files of one folder keep their order."""
    def folder(r: RuleFile) -> tuple[int, int]:
        if r.source == "user":  # an ancestor file: priority grows with depth (ancestors module)
            return (0, r.priority // 8)
        return (1, 0 if not r.scope_dir else r.scope_dir.count("/") + 1)

    return sorted(chain, key=lambda r: tuple(-x for x in folder(r)))


#: order of GitHub Copilot's instruction files inside one folder
_COPILOT_NAMES = {"copilot-instructions.md": 0, "agents.md": 1, "claude.md": 2, "gemini.md": 3}


def copilot_chain(rules: Sequence[RuleFile], cwd_rel: str, top: str = "") -> tuple[list[RuleFile], list[SkippedRule]]:
    """``RuleSettings.copilot_order``: a static answer as GitHub Copilot CLI 1.0.102 assembles
    it (recorded cases of host ``copilot``): the user's files; the root's and then the cwd's
    ``.github/copilot-instructions.md``; the root's and then the cwd's other instruction
    files; the folders between, nearest the cwd first; then the rules trees of the root and
    of the cwd (a rules tree of a folder between is skipped as ``not-root-or-cwd``). A file
    whose text equals an earlier file's is skipped as ``identical`` (Copilot merges them).
    ``top`` is the repository's folder (a git submodule's), ``""`` for the catalog root."""
    skipped: list[SkippedRule] = []
    user = [r for r in rules if r.source == "user"]
    project = [r for r in rules if r.source != "user"]

    def name_key(r: RuleFile) -> tuple[int, str]:
        return (_COPILOT_NAMES.get(r.path.rsplit("/", 1)[-1].lower(), 9), r.path)

    instr = [r for r in project if r.file_kind == "instruction"]
    trees = [r for r in project if r.file_kind != "instruction"]
    ends = (top, cwd_rel) if cwd_rel != top else (top,)

    def own(r: RuleFile) -> bool:
        return r.path.rsplit("/", 1)[-1].lower() == "copilot-instructions.md"

    ordered: list[RuleFile] = []
    for first in (True, False):
        for end in ends:
            ordered.extend(sorted((r for r in instr if r.scope_dir == end and own(r) == first), key=name_key))
    between = sorted({r.scope_dir for r in instr if r.scope_dir not in ends}, key=lambda d: -d.count("/"))
    for folder in between:
        ordered.extend(sorted((r for r in instr if r.scope_dir == folder), key=name_key))
    for end in ends:
        ordered.extend(sorted((r for r in trees if r.scope_dir == end),
                              key=lambda r: (0 if "/.github/" in "/" + r.path else 1, r.path)))
    for r in trees:
        if r.scope_dir not in ends:
            skipped.append(SkippedRule(r, "not-root-or-cwd", "rules trees are read in the root and the cwd only"))
    out: list[RuleFile] = []
    seen: dict[str, str] = {}
    for r in [*user, *ordered]:
        prev = seen.get(r.body)
        if prev is not None:
            skipped.append(SkippedRule(r, "identical", f"the same text as {prev}"))
            continue
        seen[r.body] = r.display_path
        out.append(r)
    return out, skipped
