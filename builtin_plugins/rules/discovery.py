"""Finding and loading instruction and rule files (docs/rules.md §1–3, reference/blade.md §4.3–4.6).

Per folder, lowest to highest priority: ``CLAUDE.md``, ``.claude/CLAUDE.md``,
``AGENTS.md`` (not read when ``AGENTS.override.md`` is present; Codex fallback
names only when neither is), ``AGENTS.override.md``, ``.<host>/AGENTS.md``,
``<HOST>.md``, ``.claude/rules/**/*.md``, ``.<host>/rules/**/*.md``,
``CLAUDE.local.md``. User-level files: ``~/.claude/CLAUDE.md``,
``~/.agents/AGENTS.md``, ``~/.<host>/AGENTS.md`` (or its ``AGENTS.override.md``),
``~/.claude/rules/**/*.md``, ``~/.<host>/rules/**/*.md``.

The project walk never follows links, skips VCS folders, ``node_modules``,
virtual environments (by name or by ``pyvenv.cfg``), caches and build output,
and whatever the repository's ``.gitignore`` files ignore (pathspec's
``GitIgnoreSpec``; deeper files override shallower ones), and git worktrees
checked out inside the project (they hold copies of its rules). ``CLAUDE.local.md``
is exempt from ``.gitignore``: it is meant to be ignored. User folders follow
links (design §5), cycle-safe. Every read goes through :mod:`wskit.fs`.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

from wskit import changes, fs
from wskit.builtin_plugins.rules.conventions import Conventions
from wskit.builtin_plugins.rules.model import PRIORITY, RuleSettings, rule_digest, rule_id
from wskit.builtin_plugins.rules.projectwalk import project_walk
from wskit.builtin_plugins.rules.scopes import is_ancestor
from wskit.builtin_plugins.rules.walk import SKIP_DIRS, Candidate  # noqa: F401  (SKIP_DIRS re-exported)
from wskit.fs.names import not_utf8, shown_path
from wskit.models import Diagnostic, Provenance, Scope
from wskit.values import Value

if TYPE_CHECKING:
    from wskit.resources.rule import RuleFile


class Discovery(Value):
    """Rules loaded and diagnostics (``rule-shadowed`` info entries name shadowed files);
    each list is a new empty one unless given. A plain class, so start-up compiles nothing
    (see :mod:`wskit.values`)."""

    __slots__ = ("__weakref__",)
    rules: list[RuleFile]
    diagnostics: list[Diagnostic]

    def __init__(self, rules: list[RuleFile] | None = None, diagnostics: list[Diagnostic] | None = None) -> None:
        self.rules = [] if rules is None else rules
        self.diagnostics = [] if diagnostics is None else diagnostics


def discover_project(root: str, profile, settings: RuleSettings, folders=None) -> Discovery:
    """Find and load every rule file of the project at ``root`` (absolute, canonical).

    :param folders: None for the whole project; else a
        :class:`~wskit.builtin_plugins.rules.lazy.FolderRequest`: only the rule files whose
        scope folder is one of its folders (each walked from the root with the whole walk's
        decisions, :func:`~wskit.builtin_plugins.rules.projectwalk.chain_walk`), with the
        diagnostics of the folders entered; files returned by an earlier request of the same
        catalog are not returned again.
    :returns: :class:`Discovery`; only call for a *trusted* project.
    """
    if folders is not None:
        return _discover_chain(root, profile, settings, folders)
    from wskit.builtin_plugins.rules import persist
    from wskit.builtin_plugins.rules.projectwalk import walk_key

    walker = project_walk(root, profile, settings)
    out = Discovery(diagnostics=list(walker.diags))
    cands = sorted(walker.found.values(), key=lambda c: c.rel)
    key = walk_key(root, profile, settings)
    with changes.offering(persist.previous(root, profile, settings, key)):  # rule files kept by the index
        _load_all(out, root, cands, settings, follow_links=False, home=None, prefetched=walker.prefetched,
                  known=walker.found)
    out.diagnostics.extend(persist.diagnostics())
    persist.save(root, profile, settings, key, cands)
    return out


def _discover_chain(root: str, profile, settings: RuleSettings, request) -> Discovery:
    from wskit.builtin_plugins.rules.projectwalk import chain_walk

    walker = chain_walk(root, profile, settings, request)
    marks = request.memo.setdefault(("wskit.builtin_plugins.rules.discovery", id(walker)), [0, 0])
    added, diags = walker.added[marks[0]:], walker.diags[marks[1]:]
    marks[0], marks[1] = len(walker.added), len(walker.diags)
    out = Discovery(diagnostics=list(diags))
    # no persistent index here: it is decoded whole (its cost grows with the project, ≈ 15 ms
    # for 50,000 files) while a chain holds a few rule files (a fresh read grows with depth)
    _load_all(out, root, sorted(added, key=lambda c: c.rel), settings, follow_links=False, home=None,
              prefetched=walker.prefetched, known=walker.found)
    for c in added:  # read ahead for this request only
        walker.prefetched.pop(c.rel, None)
    return out


def _blank(home: str, rel: str) -> bool:
    """Whether the user file ``rel`` holds nothing but whitespace (read at most 64 KiB): Codex
    CLI 0.171.0 reads ``~/.codex/AGENTS.md`` beside a blank ``~/.codex/AGENTS.override.md``
    (recorded case ``codex-blank-home-override``); a project folder's blank override still
    hides its ``AGENTS.md``."""
    try:
        res = fs.read_bytes(home, rel, max_bytes=64 * 1024, follow_links=True)
    except fs.SafeFsError:
        return False
    return not res.raw.strip()


def discover_user(home: str, profile, settings: RuleSettings) -> Discovery:
    """Find and load the user-level rule files under ``home`` (links followed, cycle-safe)."""
    found: dict[str, Candidate] = {}
    diags: list[Diagnostic] = []
    conv = Conventions.of(profile, settings)

    def add(rel: str, key: str, kind: str = "instruction") -> None:
        found.setdefault(rel, Candidate(rel, "user", "", PRIORITY[key], kind))

    def exists(rel: str) -> bool:
        return fs.is_file(os.path.join(home, rel))  # noted: a file created later makes the load stale

    for f in conv.user_files:
        if exists(f.name):
            add(f.name, f.slot)
    if conv.user_group is not None:
        override, plain = conv.user_group
        if exists(override.name) and not (override.name.endswith("AGENTS.override.md") and _blank(home, override.name)):
            add(override.name, override.slot)
            if exists(plain.name):
                diags.append(Diagnostic(level="info", code="rule-shadowed", path=os.path.join(home, plain.name),
                                        message=f"not loaded: shadowed by {os.path.basename(override.name)} "
                                                "in the same folder"))
        elif exists(plain.name):
            add(plain.name, plain.slot)
    dirs = conv.user_rules
    for cfg, key in dirs:
        seen: set[str] = set()
        stack = [f"{cfg}/rules"]
        while stack:
            cur = stack.pop()
            real = os.path.realpath(os.path.join(home, cur))
            if real in seen:
                diags.append(Diagnostic(level="warning", code="link-cycle", path=os.path.join(home, cur),
                                        message=f"folder link leads back to {real}; not walked again"))
                continue
            seen.add(real)
            try:
                entries = fs.scan_dir(home, cur, follow_links=True)
            except fs.SafeFsError as err:
                if err.code != "not-found":
                    diags.append(err.diagnostic(level="warning"))
                continue
            for e in entries:
                rel = f"{cur}/{e.name}"
                if e.type == "dir":
                    stack.append(rel)
                elif e.type == "file" and e.name.endswith(".md"):
                    add(rel, key, "rule")
                elif e.type == "link":  # follow mode: only a broken link or a loop stays a link
                    diags.append(Diagnostic(level="warning", code="symlink", path=os.path.join(home, rel),
                                            message="link is broken or loops; not followed"))
                elif e.name.endswith(".md"):  # a FIFO, socket or device: never opened
                    diags.append(Diagnostic(level="warning", code="special-file", path=os.path.join(home, rel),
                                            message=f"rule file is a {e.type} entry, not a regular file; not read"))
    out = Discovery(diagnostics=diags)
    _load_all(out, home, sorted(found.values(), key=lambda c: c.rel), settings, follow_links=True, home=home)
    return out


def _load_all(out: Discovery, base: str, cands: list[Candidate], settings: RuleSettings, *,
              follow_links: bool, home: str | None, prefetched: dict | None = None,
              known: dict[str, Candidate] | None = None) -> None:
    """Load ``cands`` into ``out``. With ``known`` (every candidate of the walk by path), a
    link inside the project whose target is itself an instruction file read for the same
    folder or one above it (``AGENTS.md -> CLAUDE.md``) is not read a second time: an
    ``rule-link-duplicate`` note names both, and the target is delivered once. Not for a
    host that picks one name group (``first_name_wins``): which name it reads decides
    what it shows, as the host does (opencode delivers an ``AGENTS.md`` link to ``CLAUDE.md``)."""
    if settings.first_name_wins:
        known = None
    for i, c in enumerate(cands):
        if known is not None and c.target is not None:
            real = known.get(c.target)
            if real is not None and real.target is None and real.file_kind == "instruction" \
                    and is_ancestor(real.scope_dir, c.scope_dir):
                out.diagnostics.append(Diagnostic(
                    level="info", code="rule-link-duplicate", path=os.path.join(base, c.rel),
                    message=f"links to {c.target}, which is read itself; its text is delivered once"))
                continue
        if settings.max_files is not None and i >= settings.max_files:
            out.diagnostics.append(Diagnostic(
                level="error", code="rule-file-limit", path=os.path.join(base, c.rel),
                message=f"more than {settings.max_files} rule files; this one was not loaded"))
            continue
        rule, diags = _load_reusing(base, c, settings, follow_links, home,
                                    prefetched.get(c.rel) if prefetched else None)
        out.diagnostics.extend(diags)
        if rule is not None:
            out.rules.append(rule)


from wskit.builtin_plugins.rules.walk import _RULE_TAG  # noqa: E402


@functools.cache
def _parse_frontmatter():
    """:func:`wskit.formats.frontmatter.parse_frontmatter`, imported by the first rule file with frontmatter
    (a project without rules never imports PyYAML); cached for the per-file loop."""
    from wskit.formats.frontmatter import parse_frontmatter

    return parse_frontmatter


def _load_reusing(base: str, c: Candidate, settings: RuleSettings, follow_links: bool,
                  home: str | None, prefetched: fs.ReadResult | None = None) -> tuple[RuleFile | None, list[Diagnostic]]:
    """:func:`load_rule_file`, or on a reload the previous load's rule when the file's
    stat signature is unchanged (:func:`wskit.changes.reuse`). Only a rule
    that imports nothing is remembered: an ``@`` import would make it depend on other files."""
    path = os.path.join(base, c.rel)
    target = getattr(c, "target", None)
    if target is not None:  # a link inside the project: the resolved target is read, never remembered
        try:
            prefetched = fs.read_bytes(base, target, max_bytes=settings.max_file_bytes)
        except fs.SafeFsError as e:
            return None, [Diagnostic(level="error", code=e.code, path=path, message=e.message_for(path))]
        changes.note(os.path.join(base, target), False)
        return load_rule_file(base, c.rel, source=c.source, scope_dir=c.scope_dir, priority=c.priority,
                              file_kind=c.file_kind, follow_links=follow_links, settings=settings, home=home,
                              prefetched=prefetched)
    key = (base, c.rel, c.source, c.scope_dir, c.priority, c.file_kind, follow_links, settings, home)
    prev = changes.reuse(path, follow_links)
    if type(prev) is tuple and len(prev) == 4 and prev[0] == _RULE_TAG and prev[1] == key:
        return prev[2], list(prev[3])
    rule, diags = load_rule_file(base, c.rel, source=c.source, scope_dir=c.scope_dir, priority=c.priority,
                                 file_kind=c.file_kind, follow_links=follow_links, settings=settings, home=home,
                                 prefetched=prefetched)
    if rule is not None and not rule.imports and "@" not in rule.body:
        changes.remember(path, follow_links, (_RULE_TAG, key, rule, tuple(diags)))
    return rule, diags


def load_rule_file(
    base: str, rel: str, *, source: str, scope_dir: str, priority: int, file_kind: str,
    follow_links: bool, settings: RuleSettings, home: str | None = None, import_depth: int | None = None,
    prefetched: fs.ReadResult | None = None, import_root: str = "",
) -> tuple[RuleFile | None, list[Diagnostic]]:
    """Read, check and build one :class:`RuleFile` (imports inlined).

    Refusals (each a diagnostic naming the file; the file is skipped): every
    :mod:`wskit.fs` code (``too-large`` over ``settings.max_file_bytes``,
    ``symlink``, ``hardlink``…), ``rule-name-invalid`` (a tab, newline, control or
    bidi character in the path, which is rendered into the prompt),
    ``hidden-characters``, frontmatter errors,
    ``rule-paths-invalid`` and ``rule-empty``. Refused *patterns* are
    ``rule-pattern-invalid``/``rule-pattern-limit`` warnings; the rule stays.

    :param import_depth: ``@path`` import hops allowed (default 4, Claude Code's;
        the Gemini CLI plugin passes 5).
    :param import_root: a folder below ``base`` its ``@path`` imports must stay in (``""``: ``base``).
    :param prefetched: the file's bytes when a walk already read them safely
        (:func:`wskit.fs.fdwalk.read_file_at`); else the file is read here.
    :returns: the rule (or None) and diagnostics.
    """
    path = os.path.join(base, rel)
    diags: list[Diagnostic] = []

    def err(code: str, msg: str, line: int | None = None, level: str = "error"):
        diags.append(Diagnostic(level=level, code=code, path=path, line=line, message=msg))
        return None, diags

    why = not_utf8(rel)
    if why is not None:
        # a name that is not UTF-8 cannot be shown, hashed into an id or written to a session
        diags.append(Diagnostic(level="error", code="rule-name-invalid", path=shown_path(path),
                                message=f"rule path {why}; not read"))
        return None, diags
    bad_name = next((c for c in rel if c in "\t\n\r"), None) or next(
        (cp for _, cp in fs.find_hidden_chars(rel)), None)
    if bad_name is not None:
        # the path is rendered into the prompt (``<instruction-file path=…>``): a
        # newline or bidi override in a file or folder name would forge text there
        shown = bad_name if bad_name.startswith("U+") else f"U+{ord(bad_name):04X}"
        return err("rule-name-invalid", f"rule path holds the control or hidden character {shown}; not read")
    try:
        res = prefetched if prefetched is not None else fs.read_bytes(
            base, rel, max_bytes=settings.max_file_bytes, follow_links=follow_links)
        text = fs.decode_text(res.raw, res.path)
    except fs.SafeFsError as e:
        diags.append(Diagnostic(level="error", code=e.code, path=path, line=getattr(e, "line", None),
                                message=e.message_for(path)))
        return None, diags
    hidden = next(iter(fs.find_hidden_chars(text)), None)
    if hidden is not None:
        return err("hidden-characters", f"rule contains the hidden character {hidden[1]}", hidden[0])
    patterns: tuple[str, ...] = ()
    activation = ""
    description = ""
    body = text
    if file_kind == "rule":
        fm = _parse_frontmatter()(text, path)
        diags.extend(fm.diagnostics)
        if fm.present and not fm.ok:
            return None, diags
        body = fm.body if fm.present else text
        data = fm.data if fm.present and isinstance(fm.data, dict) else {}
        key = next((k for k in ("paths", "applyTo", "globs") if data.get(k) is not None), "paths")
        line = fm.line_of(key)
        from wskit.builtin_plugins.rules.patterns import compiled, normalise, split_paths  # where a rule file exists

        if _excluded_agent(data.get("excludeAgent")):
            diags.append(Diagnostic(level="info", code="rule-excluded", path=path, line=fm.line_of("excludeAgent"),
                                    message="excludeAgent names coding-agent: GitHub Copilot CLI leaves it out"))
            return None, diags
        try:
            items, problems = split_paths(data.get(key))
        except TypeError as e:
            return err("rule-paths-invalid", str(e).replace("'paths'", repr(key)), line)
        for p in problems:
            diags.append(Diagnostic(level="warning", code="rule-paths-invalid", path=path, line=line, message=p))
        if key == "applyTo" and items and all(i.strip() in _APPLY_TO_ALL for i in items):
            items = []  # Copilot delivers a file whose applyTo matches everything whole
        patterns = normalise(items)
        if "/.cursor/rules/" in f"/{rel}":
            how = _cursor_activation(data, patterns)
            if how is None or how:
                patterns = ()
                activation = how or ""
            if isinstance(data.get("description"), str):
                description = data["description"].strip()
        if settings.max_patterns is not None and len(patterns) > settings.max_patterns:
            return err("rule-paths-invalid", f"paths has {len(patterns)} patterns, over the limit of "
                       f"{settings.max_patterns}", line)
        for prob in compiled(patterns, settings.max_pattern_length).problems:
            diags.append(Diagnostic(level="warning", code=prob.code, path=path, line=line,
                                    message=f"pattern {prob.pattern[:80]!r}: {prob.message}; it matches nothing"))
    imported: tuple[str, ...] = ()
    if settings.imports and not (settings.imports_skip and rel.rsplit("/", 1)[-1] in settings.imports_skip):
        # imported where a rule file exists
        from wskit.builtin_plugins.rules.imports import MAX_DEPTH as IMPORT_MAX_DEPTH
        from wskit.builtin_plugins.rules.imports import expand_imports

        imp = expand_imports(body, base=base, rel_path=rel, home=home, follow_links=follow_links,
                             max_bytes=settings.max_file_bytes,
                             max_depth=import_depth if import_depth is not None
                             else settings.import_depth if settings.import_depth is not None else IMPORT_MAX_DEPTH,
                             confine=import_root)
        diags.extend(imp.diagnostics)
        body, imported = imp.text, tuple(imp.imported)
    body = body.strip()
    if not body:
        return err("rule-empty", "rule has no content after its frontmatter; skipped", level="warning")
    scope = Scope.USER if source == "user" else Scope.LOCAL if source == "local" else Scope.PROJECT
    from wskit.resources.rule import RuleFile  # the model class, built by the first rule

    rule = RuleFile(
        id=rule_id(source, rel), name=rel, source=source, scope_dir=scope_dir, priority=priority,
        patterns=patterns, body=body, bytes=len(body.encode("utf-8")), imports=imported,
        file_kind=file_kind, follow_links=follow_links, activation=activation,
        description=description,
        provenance=Provenance(scope=scope, source_root=base, path=rel, sha256=rule_digest(rel, patterns, body)),
    )
    return rule, diags


#: ``applyTo`` values GitHub Copilot CLI 1.0.102 treats as every file (the file is delivered whole)
_APPLY_TO_ALL = frozenset({"*", "**", "**/*"})


def _excluded_agent(value) -> bool:
    """Whether an ``excludeAgent`` value names ``coding-agent``, the agent GitHub Copilot CLI
    is: the string ``coding-agent`` itself or a YAML list holding it, compared exactly.
    GitHub Copilot CLI 1.0.102 leaves only such a file out; ``code-review``, unknown names,
    another case (``Coding-Agent``), blanks around it and a comma list in one string
    (``"code-review, coding-agent"``) all leave the file in (case ``copilot-exclude-agent``)."""
    if isinstance(value, str):
        return value == "coding-agent"
    if isinstance(value, list):
        return "coding-agent" in value
    return False


def _cursor_activation(data: dict, patterns: tuple[str, ...]) -> str | None:
    """How a Cursor rule (a file of a ``.cursor/rules`` tree) applies, from its frontmatter
    (docs/compatibility.md, Cursor): ``alwaysApply: true``: always (None: its patterns are
    dropped); ``globs``: by path (``""``); else a ``description``: ``requested``; else
    ``manual``."""
    if data.get("alwaysApply") is True:
        return None
    if patterns:
        return ""
    desc = data.get("description")
    return "requested" if isinstance(desc, str) and desc.strip() else "manual"


def reload_rule(rule: RuleFile, settings: RuleSettings, home: str | None = None) -> tuple[RuleFile | None, list[Diagnostic]]:
    """Read ``rule`` again from disk (same classification): the current version, or None when gone or invalid."""
    return load_rule_file(rule.provenance.source_root, rule.path, source=rule.source, scope_dir=rule.scope_dir,
                          priority=rule.priority, file_kind=rule.file_kind, follow_links=rule.follow_links,
                          settings=settings, home=home if rule.source == "user" else None)


#: at most this many files are listed to match one ``instructions`` glob of ``opencode.json``
_GLOB_FILES = 2000


def opencode_instructions(root: str, settings: RuleSettings, known: set[str]) -> tuple[list, list[Diagnostic]]:
    """The files ``<root>/opencode.json``'s ``instructions`` names (paths and globs relative
    to the project, as opencode 1.18.33 reads them: recorded case
    ``opencode-config-instructions``), loaded as project instruction files of the root after
    its ``AGENTS.md``. A glob is matched with the rule ``paths`` matcher against the files
    below its literal leading folders (at most :data:`_GLOB_FILES`, links not followed, secret
    names skipped); absolute paths, ``..`` and URLs are refused with a diagnostic; a file
    already read (``known``) is not read twice."""
    from wskit.builtin_plugins.rules.patterns import compiled, normalise
    from wskit.fs.jsonfile import read_json

    data, diags = read_json(root, "opencode.json", max_bytes=1 << 20)
    items = data.get("instructions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return [], list(diags)
    diags = list(diags)
    path = os.path.join(root, "opencode.json")
    rels: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            continue
        item = item.strip().removeprefix("./")
        if item.startswith(("/", "~")) or "://" in item or ".." in item.split("/"):
            diags.append(Diagnostic(level="warning", code="rule-import-outside", path=path,
                                    message=f"instructions entry {item!r} is not a path inside the project; not read"))
            continue
        if not any(c in item for c in "*?[{"):
            rels.append(item)
            continue
        parts = item.split("/")
        fixed = []
        for part in parts[:-1]:
            if any(c in part for c in "*?[{"):
                break
            fixed.append(part)
        start = "/".join(fixed)
        matcher = compiled(normalise([item]))
        seen = 0
        for dirpath, dirs, files in os.walk(os.path.join(root, start) if start else root):
            dirs[:] = sorted(d for d in dirs if not fs.is_secret_name(d) and d not in SKIP_DIRS
                             and not os.path.islink(os.path.join(dirpath, d)))
            for name in sorted(files):
                seen += 1
                rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if seen <= _GLOB_FILES and matcher.match(rel) and rel not in rels:
                    rels.append(rel)
            if seen > _GLOB_FILES:
                diags.append(Diagnostic(level="warning", code="rule-walk-too-deep", path=path,
                                        message=f"instructions glob {item!r}: more than {_GLOB_FILES} files below "
                                                f"{start or '.'}; the rest not matched"))
                break
    out = []
    for rel in rels:
        if rel in known or not fs.is_file(os.path.join(root, rel)):
            continue
        known.add(rel)
        rule, d = load_rule_file(root, rel, source="project", scope_dir="", priority=PRIORITY["opencode.json"],
                                 file_kind="instruction", follow_links=False, settings=settings)
        diags.extend(d)
        if rule is not None:
            out.append(rule)
    return out, diags
