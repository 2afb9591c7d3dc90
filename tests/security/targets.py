"""The loaders the hostile-file cases run against.

To put a new loader under the whole adversarial table, append one
:class:`Target` to :data:`TARGETS`: say where a resource named ``n`` lives
(``file_for``), what a valid one looks like (``valid``), and how to load a
source whose path-naming field carries a given value (``load``). Every case
in :mod:`tests.security.cases` then runs against it; per-target expectations
that differ from a case's default go in ``expect``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wskit import fs
from wskit.formats import frontmatter as markdown
from wskit.fs import jsonsafe
from wskit.models import Diagnostic, ResourceSource, Scope


@dataclass
class Ctx:
    """Folders of one case: ``base`` (the project or home), ``root`` (the
    source folder under it), ``outside`` (a folder outside ``base``) and
    ``secret`` (a file whose bytes must never surface)."""

    base: Path
    root: Path
    outside: Path
    secret: Path
    secret_bytes: bytes


@dataclass
class Outcome:
    """What a load produced: resource names, diagnostics, and a text dump of
    everything (resources and diagnostics) to search for leaked secrets."""

    names: set[str]
    diagnostics: list[Diagnostic]
    dump: str

    @property
    def codes(self) -> set[str]:
        return {d.code for d in self.diagnostics}


@dataclass
class Target:
    """One loader under test.

    :ivar name: short id used in test ids and the figures table.
    :ivar format: ``markdown`` or ``json`` (cases name the formats they apply to).
    :ivar file_for: resource name -> path of its file relative to ``Ctx.root``.
    :ivar valid: resource name -> bytes of a valid resource file.
    :ivar load: ``(ctx, path_field)`` -> :class:`Outcome`; ``path_field`` is a
        hostile value for the loader's path-naming field, or None.
    :ivar scope: the scope the loader reads as (decides link following).
    :ivar expect: case name -> accepted diagnostic codes, overriding the case.
    :ivar skip: cases that do not apply (e.g. resource-name cases for a plain file reader).
    :ivar whole_fail: cases where failing the whole source (the valid sibling
        too) is the loader's documented behaviour (output styles, Blade §3.3).
    :ivar also_accept: a loader's catch-all code for a skipped file, accepted
        in every case besides the specific ones (``style-skipped``, ``agent-skipped``).
    :ivar why: case -> reason no diagnostic is required, for the docs table.
    """

    name: str
    format: str
    file_for: Callable[[str], str]
    valid: Callable[[str], bytes]
    load: Callable[[Ctx, str | None], Outcome]
    scope: Scope = Scope.PROJECT
    expect: dict[str, frozenset[str] | None] = field(default_factory=dict)
    skip: frozenset[str] = frozenset()
    whole_fail: frozenset[str] = frozenset()
    also_accept: frozenset[str] = frozenset()
    #: case name -> why no diagnostic is required (shown in the docs table for a None ``expect``)
    why: dict[str, str] = field(default_factory=dict)


def _skill_md(name: str) -> bytes:
    # no 'name' field: the folder name is the identity, and hostile names must
    # reach the loader's name checks rather than break the YAML
    return b"---\ndescription: A valid skill. Use when testing.\n---\n\nBody.\n"


def _skills_loader(scope: Scope, follow: bool) -> Callable[[Ctx, str | None], Outcome]:
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager

    hooks = WskitHooks(make_plugin_manager(load_entrypoints=False, env={}))
    kinds = {k.name: k for k in hooks.resource_kinds()[0]}

    def load(ctx: Ctx, path_field: str | None) -> Outcome:
        dirs = ("skills",) if path_field is None else ("skills", path_field)
        src = ResourceSource(scope=scope, root=str(ctx.root), base=str(ctx.base), follow_links=follow,
                             components={"skill": dirs})
        found, diags = hooks.load(kinds["skill"], src)
        dump = repr([r.model_dump() for r in found]) + repr([d.model_dump() for d in diags])
        return Outcome({r.name for r in found}, list(diags), dump)

    return load


def _kind_loader(kind: str) -> Callable[[Ctx, str | None], Outcome]:
    """Any markdown kind loaded through its hook from a project source (the
    path field goes into ``components``, as a plugin manifest would set it)."""
    from wskit.plugin.facade import WskitHooks
    from wskit.plugin.manager import make_plugin_manager

    hooks = WskitHooks(make_plugin_manager(load_entrypoints=False, env={}))
    k = {x.name: x for x in hooks.resource_kinds()[0]}[kind]

    def load(ctx: Ctx, path_field: str | None) -> Outcome:
        dirs = (k.default_dir,) if path_field is None else (k.default_dir, path_field)
        src = ResourceSource(scope=Scope.PROJECT, root=str(ctx.root), base=str(ctx.base), components={kind: dirs})
        found, diags = hooks.load(k, src)
        dump = repr([r.model_dump() for r in found]) + repr([d.model_dump() for d in diags])
        return Outcome({r.name.rsplit(":", 1)[-1] for r in found}, list(diags), dump)

    return load


def _md(kind: str) -> Callable[[str], bytes]:
    def valid(name: str) -> bytes:
        # the name goes in the frontmatter as JSON (a valid YAML scalar), so hostile
        # names reach the loader's name checks for kinds named by a field (agents)
        return (f"---\nname: {json.dumps(name)}\ndescription: A valid {kind}.\n---\n\nBody.\n").encode()

    return valid


def _names_refused(code: str) -> dict[str, frozenset[str]]:
    # a name that is not UTF-8 is refused by the shared markdown walk before the loader sees it
    return {**{c: frozenset({code}) for c in ("name-newline", "name-colon", "name-bidi", "name-non-ascii")},
            "name-not-utf8": frozenset({"name-not-utf8"})}


#: hidden characters are a warning (the resource still loads, like a skill); a
#: 100,000-character description is refused with the loader's own code
def _flagged(kind: str) -> dict[str, frozenset[str]]:
    return {"hidden-bidi": frozenset({"hidden-characters"}),
            "hidden-control": frozenset({"hidden-characters"}),
            "long-line": frozenset({f"{kind}-description-too-long"})}


#: Blade §3.3: a link or special file among the styles fails the whole catalog.
_STYLE_FATAL = frozenset({"symlink-file-outside", "symlink-file-secret", "fifo", "socket", "device"})

#: one-folder-per-kind loaders: the folder-link cases would replace the whole
#: kind folder (the sibling with it); deep-dirs is run once, for skills
_FLAT_SKIP = frozenset({"symlink-dir-outside", "symlink-dir-loop", "deep-dirs"})


def _file_reader(read: Callable[[Path, str], object]) -> Callable[[Ctx, str | None], Outcome]:
    """A 'loader' that reads every file under ``root/files`` (plus ``path_field``) with ``read``."""

    def load(ctx: Ctx, path_field: str | None) -> Outcome:
        rel_root = os.path.relpath(ctx.root, ctx.base)
        rels = []
        try:
            for e in fs.scan_dir(ctx.base, f"{rel_root}/files"):
                rels.append((e.name.rsplit(".", 1)[0], f"{rel_root}/files/{e.name}"))
        except fs.SafeFsError as err:
            return Outcome(set(), [err.diagnostic()], str(err))
        if path_field is not None:
            rels.append(("<field>", path_field))
        names, diags, dump = set(), [], []
        for name, rel in rels:
            try:
                value = read(ctx.base, rel)
            except fs.SafeFsError as err:
                diags.append(err.diagnostic())
                continue
            if isinstance(value, list):  # diagnostics from a successful read
                diags.extend(value)
            names.add(name)
            dump.append(repr(value))
        return Outcome(names, diags, "".join(dump) + repr([d.model_dump() for d in diags]))

    return load


def _walker(ctx: Ctx, path_field: str | None) -> Outcome:
    """A recursive loader's shape: walk ``root/tree`` with :func:`wskit.fs.walk.walk_files`,
    read every file found; the path field names another folder to walk."""
    from wskit.fs.walk import walk_files

    rel_root = os.path.relpath(ctx.root, ctx.base)
    names, diags, dump = set(), [], []
    starts = [f"{rel_root}/tree"] + ([] if path_field is None else [path_field])
    for start in starts:
        try:
            files, found = walk_files(ctx.base, start)
        except fs.SafeFsError as err:
            diags.append(err.diagnostic())
            continue
        diags.extend(found)
        for f in files:
            try:
                extra = _read_text(ctx.base, f.rel)
            except fs.SafeFsError as err:
                diags.append(err.diagnostic())
                continue
            diags.extend(extra)
            names.add(f.rel.split("/")[2] if start != path_field else "<field>")
            dump.append(f.rel)
    return Outcome(names, diags, "".join(dump) + repr([d.model_dump() for d in diags]))


def _read_text(base: Path, rel: str) -> list[Diagnostic]:
    res = fs.read_bytes(base, rel, max_bytes=1024 * 1024)
    text = fs.decode_text(res.raw, res.path)
    return [Diagnostic(level="warning", code="hidden-characters", path=res.path, line=line, message=cp)
            for line, cp in fs.find_hidden_chars(text)]


def _read_fm(base: Path, rel: str) -> list[Diagnostic]:
    fm, res = markdown.read_frontmatter(base, rel)
    out = list(fm.diagnostics)
    if fm.ok:
        text = "\n".join(str(v) for v in fm.data.values())
        out += [Diagnostic(level="warning", code="hidden-characters", path=res.path, line=line, message=cp)
                for line, cp in fs.find_hidden_chars(text)]
    if out and any(d.level == "error" for d in out):
        raise fs.SafeFsError(out[0].code, res.path, out[0].message)
    return out


def _read_json(base: Path, rel: str) -> list[Diagnostic]:
    jsonsafe.read_json(base, rel)
    return []


#: Resource-name cases: only loaders that name resources after files take them.
_NAME_CASES = frozenset({"name-newline", "name-colon", "name-bidi", "name-non-ascii", "name-not-utf8",
                         # folder-per-resource cases: a plain file reader has no resource folder
                         "symlink-dir-outside", "symlink-dir-loop",
                         # 10,000 mkdirs cost ~8 s on a slow disk: run once per walker,
                         # safe file access itself is checked in test_safefs_hostile.py
                         "deep-dirs"})

TARGETS: list[Target] = [
    Target("skills-project", "markdown", lambda n: f"skills/{n}/SKILL.md", _skill_md,
           _skills_loader(Scope.PROJECT, False)),
    Target("skills-user-follow", "markdown", lambda n: f"skills/{n}/SKILL.md", _skill_md,
           _skills_loader(Scope.USER, True), scope=Scope.USER, skip=frozenset({"deep-dirs"}),
           expect={# the user's own links are followed (GNU Stow), but never into a secret
                   "symlink-file-outside": frozenset({"followed-link"}),
                   "symlink-dir-outside": frozenset({"followed-link"}),
                   "symlink-file-secret": frozenset({"secret-path"}),
                   "symlink-dir-loop": frozenset({"symlink", "link-cycle"})}),
    Target("fs-text", "text", lambda n: f"files/{n}.md", _skill_md, _file_reader(_read_text),
           expect={"sparse-2gib": frozenset({"too-large"})}, skip=_NAME_CASES),
    Target("frontmatter", "markdown", lambda n: f"files/{n}.md", _skill_md, _file_reader(_read_fm), skip=_NAME_CASES),
    Target("json-manifest", "json", lambda n: f"files/{n}.json",
           lambda n: b'{"name": "%s", "skills": "./skills"}' % n.encode(), _file_reader(_read_json),
           expect={"sparse-2gib": frozenset({"too-large"})}, skip=_NAME_CASES),
    Target("safewalk-tree", "text", lambda n: f"tree/{n}/doc.md", _skill_md, _walker,
           expect={"sparse-2gib": frozenset({"too-large"})},
           skip=frozenset({"name-newline", "name-colon", "name-bidi", "name-non-ascii", "name-not-utf8",
                           "deep-dirs"})),
    Target("commands-project", "markdown", lambda n: f"commands/{n}.md", _md("command"), _kind_loader("command"),
           expect={**_names_refused("command-name-invalid"), **_flagged("command")}, skip=_FLAT_SKIP),
    Target("agents-project", "markdown", lambda n: f"agents/{n}.md", _md("agent"), _kind_loader("agent"),
           expect={**_names_refused("agent-name-invalid"), **_flagged("agent")},
           skip=_FLAT_SKIP, also_accept=frozenset({"agent-skipped"})),
    Target("styles-project", "markdown", lambda n: f"output-styles/{n}.md", _md("style"), _kind_loader("style"),
           expect={**_names_refused("style-skipped"),
                   # the file is over Blade's 24 KiB: skipped unread past the bound
                   "long-line": frozenset({"style-skipped"}),
                   **{c: frozenset({"style-catalog-invalid"}) for c in _STYLE_FATAL}},
           skip=_FLAT_SKIP, whole_fail=_STYLE_FATAL, also_accept=frozenset({"style-skipped"})),
]


# -- the rule catalog (docs/rules.md): instruction files, rules folders, @imports --

def _rule_md(name: str) -> bytes:
    return b"# A valid rule\n\nUse tabs.\n"


def _rules_loader(user: bool) -> Callable[[Ctx, str | None], Outcome]:
    """Load rules with :func:`wskit.builtin_plugins.rules.discovery.discover_project` (or
    ``discover_user``); the path-naming field is an ``@import`` target written
    into an instruction file ``CLAUDE.md`` at the top of the source. A rule's
    name is its path's first component below ``.claude/rules/`` (or its folder,
    for ``<n>/AGENTS.md``); the importer is ``<field>`` only when the import
    was inlined (its token is gone from the body)."""
    from wskit.builtin_plugins.rules.discovery import discover_project, discover_user
    from wskit.builtin_plugins.rules.model import RuleSettings
    from wskit.host import HostProfile

    def name_of(rel: str) -> str:
        parts = rel.split("/")
        if parts[:2] == [".claude", "rules"]:
            return parts[2].rsplit(".", 1)[0] if len(parts) == 3 else parts[2]
        return parts[0] if len(parts) > 1 else rel

    def load(ctx: Ctx, path_field: str | None) -> Outcome:
        # <project>/CLAUDE.md, or ~/.claude/CLAUDE.md (the only user instruction file
        # under the home: there '../x' and 'a/../../b' stay inside the home)
        importer = ctx.root / "CLAUDE.md" if user else ctx.base / "CLAUDE.md"
        if path_field is not None:
            importer.write_text(f"Project notes.\n@{path_field}\n", encoding="utf-8", errors="surrogatepass")
        profile = HostProfile(name="wskit", home=ctx.base if user else ctx.base.parent / "home")
        found = (discover_user if user else discover_project)(str(ctx.base), profile, RuleSettings())
        names = set()
        for r in found.rules:
            if r.path in (".claude/CLAUDE.md", "CLAUDE.md"):
                if path_field is not None and f"@{path_field}" not in r.body:
                    names.add("<field>")
                continue
            names.add(name_of(r.path))
        dump = repr([r.model_dump() for r in found.rules]) + repr([d.model_dump() for d in found.diagnostics])
        return Outcome(names, list(found.diagnostics), dump)

    return load


#: @import targets: refused before any read (outside the root, a URL, a drive)
#: or by safe file access (``rule-import-refused`` carries the fs code in
#: its message); a NUL byte makes the importing file itself ``hidden-characters``
#: (refused whole, before any import is looked at).
_IMPORT_FIELDS: dict[str, frozenset[str] | None] = {
    "field-dotdot": frozenset({"rule-import-outside"}),
    "field-absolute": frozenset({"rule-import-outside"}),
    "field-mid-escape": frozenset({"rule-import-outside"}),
    "field-url": frozenset({"rule-import-outside"}),
    "field-drive": frozenset({"rule-import-outside"}),
    "field-backslash": frozenset({"rule-import-refused"}),
    "field-secret": frozenset({"rule-import-refused"}),
    "field-nul": frozenset({"hidden-characters"}),
}
#: Rules are named by their path: a control or bidi character in it is refused
#: (the path is rendered into the prompt); ':' and non-ASCII are ordinary path text.
_RULE_NAMES: dict[str, frozenset[str] | None] = {
    "name-newline": frozenset({"rule-name-invalid"}), "name-bidi": frozenset({"rule-name-invalid"}),
    "name-colon": None, "name-non-ascii": None, "name-not-utf8": frozenset({"rule-name-invalid"}),
}
#: The case files carry only frontmatter: a rule's body is then empty (``rule-empty``);
#: rules are bounded in bytes (``max_file_bytes``, budgets), not line length.
_RULE_BODY = {"long-line": frozenset({"rule-empty"})}
#: AGENTS.md has no frontmatter (Codex): the YAML cases are plain text, never parsed.
_NO_FRONTMATTER: dict[str, frozenset[str] | None] = {
    "yaml-bomb": None, "yaml-deep-flow": None, "yaml-deep-block": None, "long-line": None}
_RULE_WHY = {
    "name-colon": "none required: ':' is ordinary path text, loaded",
    "name-non-ascii": "none required: ordinary path text, loaded",
}
_AGENTS_MD_WHY = {**_RULE_WHY, **{c: "none required: AGENTS.md has no frontmatter, the text is never parsed as YAML"
                                   for c in ("yaml-bomb", "yaml-deep-flow", "yaml-deep-block")},
                  "long-line": "none required: loaded verbatim, bounded in bytes (1 MiB per file, budgets)"}

#: A folder link in a project is never walked (the rule behind it is never read);
#: the walk names it with an info ``symlink`` diagnostic.
_DIR_LINK_SILENT: dict[str, frozenset[str] | None] = {"symlink-dir-outside": frozenset({"symlink"}),
                                                      "symlink-dir-loop": frozenset({"symlink"})}

TARGETS += [
    Target("rules-project", "markdown", lambda n: f"rules/{n}/rule.md", _rule_md, _rules_loader(False),
           expect={**_IMPORT_FIELDS, **_RULE_NAMES, **_RULE_BODY, **_DIR_LINK_SILENT}, skip=frozenset({"deep-dirs"}),
           why=_RULE_WHY),
    Target("rules-agents-md", "markdown", lambda n: f"../{n}/AGENTS.md", _rule_md, _rules_loader(False),
           expect={**_IMPORT_FIELDS, **_RULE_NAMES, **_NO_FRONTMATTER, **_DIR_LINK_SILENT,
                   "deep-dirs": frozenset({"rule-walk-too-deep"})}, why=_AGENTS_MD_WHY),
    Target("rules-user-follow", "markdown", lambda n: f"rules/{n}/rule.md", _rule_md, _rules_loader(True),
           scope=Scope.USER, skip=frozenset({"deep-dirs"}),
           expect={**_IMPORT_FIELDS, **_RULE_NAMES, **_RULE_BODY,
                   # relative to ~/.claude these stay inside the home: a mention, not found
                   "field-dotdot": frozenset({"rule-import-not-found"}),
                   "field-mid-escape": frozenset({"rule-import-not-found"}),
                   # the user's own links are followed (GNU Stow), never into a secret; the
                   # outside file holds only frontmatter, so its body is empty
                   "symlink-file-outside": frozenset({"rule-empty"}),
                   "symlink-dir-outside": frozenset({"rule-empty"}),
                   "symlink-file-secret": frozenset({"secret-path"}),
                   "symlink-dir-loop": frozenset({"link-cycle", "symlink"})}, why=_RULE_WHY),
]
