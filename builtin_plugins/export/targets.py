"""The target writers: for each host, the files it reads, made from a
:class:`~wskit.builtin_plugins.export.view.SourceView`, and every loss said with its reason.

Frontmatter is written with ``python-frontmatter``, TOML with ``tomli-w``, JSON with the
standard library. What each target reads (and why each mapping is what it is) is
docs/export.md; the host behaviour each rests on is docs/compatibility.md.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import PurePosixPath

from wskit.builtin_plugins.export.view import SourceView
from wskit.values import FrozenValue, Value, field

#: every target ``wsctl export --to`` takes
TARGETS = ("claude", "codex", "gemini", "opencode", "copilot", "cursor", "agents")

#: a skill folder copied into a target: at most this many files and bytes (every read bounded)
MAX_SKILL_FILES, MAX_SKILL_BYTES = 500, 16 * 1024 * 1024

_POSITIONAL = re.compile(r"\$(?:ARGUMENTS\[(\d+)\]|(\d+))")
_ALL_ARGS = re.compile(r"\$ARGUMENTS(?!\[)")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}")
_GLOB = re.compile(r"[*?\[\]{}!]")


class Loss(FrozenValue):
    """Something a target does not carry, or carries with a difference.

    :ivar target: the target host. :ivar kind: ``instruction``, ``rule``, ``skill``,
        ``command``, ``agent``, ``mcp_server``, ``hook``, ``personal``.
    :ivar item: the source item (a path or a name). :ivar reason: why, in words.
    :ivar carried: True when carried with a difference, False when not carried at all.
    """

    target: str
    kind: str
    item: str
    reason: str
    carried: bool = False

    def to_json(self) -> dict:
        return {"target": self.target, "kind": self.kind, "item": self.item, "reason": self.reason,
                "carried": self.carried}


class PlannedFile(Value):
    """One file the export writes: ``path`` relative to the project root, its bytes, the
    targets it serves and the source files it was made from."""

    path: str
    data: bytes
    targets: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    kind: str = ""


class Plan(Value):
    """The files of every target (by path) and the losses, in target order."""

    files: dict[str, PlannedFile] = field(default_factory=dict)
    losses: list[Loss] = field(default_factory=list)
    notes: list[Loss] = field(default_factory=list)

    def add(self, target: str, path: str, data: bytes | str, sources, kind: str) -> None:
        """Add ``path``; a second target asking for the same bytes shares the file; different
        bytes for a path already planned are a loss (the first keeps the file)."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        have = self.files.get(path)
        if have is None:
            self.files[path] = PlannedFile(path, data, [target], list(sources), kind)
            return
        if have.data != data:  # two sources map to one file name: the first keeps it, the other is said
            self.lose(target, kind, ", ".join(sources), f"{path} is already written from "
                      f"{', '.join(have.sources)} ({', '.join(have.targets)}): not carried")
            return
        if target not in have.targets:
            have.targets.append(target)
        have.sources.extend(s for s in sources if s not in have.sources)

    def lose(self, target: str, kind: str, item: str, reason: str, carried: bool = False) -> None:
        self.losses.append(Loss(target, kind, item, reason, carried))


def literal_folder(pattern: str) -> str:
    """The folder a glob names before its first wildcard segment (``pkg/api/**/*.py`` →
    ``pkg/api``; ``**/*.ts`` → ``""``; a plain file path → its folder)."""
    parts = PurePosixPath(pattern.strip("/")).parts
    out = []
    for i, part in enumerate(parts):
        if _GLOB.search(part) or i == len(parts) - 1:
            break
        out.append(part)
    return "/".join(out)


def _join(texts: list[str]) -> str:
    return "\n\n".join(t.strip() for t in texts if t.strip()) + "\n"


def _fm(meta: dict, body: str) -> str:
    import frontmatter

    meta = {k: v for k, v in meta.items() if v not in (None, "", [], {})}
    if not meta:
        return body.strip() + "\n"
    return frontmatter.dumps(frontmatter.Post(body.strip(), **meta), sort_keys=False) + "\n"


def _toml(data: dict) -> str:
    import tomli_w

    return tomli_w.dumps(data)


def _json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# ---- instruction files ---------------------------------------------------------------------


def _folder_texts(view: SourceView, plan: Plan, target: str, *, keep_imports: bool,
                  path_scoped: bool) -> dict[str, tuple[list[str], list[str]]]:
    """``{folder: (texts, sources)}``: each folder's unconditional text; without a path-scoped
    form of its own (``path_scoped`` False) a conditional rule goes to the folder its patterns
    name (widened, reported) or is not carried."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for folder, ft in view.folders.items():
        texts, sources = out.setdefault(folder, ([], []))
        for piece in ft.pieces:
            if keep_imports and piece.raw is not None:
                texts.append(piece.raw)
            else:
                texts.append(piece.body)
                if piece.raw is not None:
                    plan.lose(target, "instruction", piece.path, f"{target} does not follow @ imports: the imported "
                              "files are inlined", carried=True)
            sources.append(piece.path)
    if path_scoped:
        return out
    for rule in view.conditional:
        folders = sorted({literal_folder(p) for p in rule.patterns})
        if "" in folders:
            plan.lose(target, "rule", rule.path, f"{target} has no path-scoped rules and the pattern(s) "
                      f"{', '.join(rule.patterns)} name no folder: an always-on file would widen it to every file")
            continue
        missing = [f for f in folders if not os.path.isdir(os.path.join(view.root, f))]
        if missing:
            plan.lose(target, "rule", rule.path, f"{target} has no path-scoped rules and the folder(s) "
                      f"{', '.join(missing)} the patterns name do not exist")
            continue
        for f in folders:
            texts, sources = out.setdefault(f, ([], []))
            texts.append(rule.body)
            sources.append(rule.path)
        plan.lose(target, "rule", rule.path, f"{target} has no path-scoped rules: carried as the instruction file "
                  f"of {', '.join(f + '/' for f in folders)} (widened from {', '.join(rule.patterns)} to every "
                  "file there)", carried=True)
    return out


def _instructions_agents_md(view: SourceView, plan: Plan, target: str) -> None:
    """``AGENTS.md`` per folder (Codex, opencode, Cursor, the plain ``agents`` tree): imports
    inlined (none of them follows ``@``), conditional rules widened to their folder."""
    nested_note = {
        "codex": "Codex reads a nested AGENTS.md only for sessions started in its folder or below, not when a "
                 "file there is read",
        "opencode": "opencode reads a nested AGENTS.md only for sessions started in its folder or below",
    }
    for folder, (texts, sources) in _folder_texts(view, plan, target, keep_imports=False, path_scoped=False).items():
        path = f"{folder}/AGENTS.md" if folder else "AGENTS.md"
        plan.add(target, path, _join(texts), sources, "instruction")
        if folder and target in nested_note:
            plan.lose(target, "instruction", path, nested_note[target], carried=True)
        if folder and target == "cursor":
            for src in sources:
                plan.lose(target, "instruction", src, f"carried as {path}: Cursor applies a subfolder AGENTS.md "
                          "when files of that folder are in the context, not to every request", carried=True)
        if folder and target == "opencode":
            plan.lose(target, "instruction", folder, "opencode delivers the nearest folder's file first, the "
                      "source the root's first", carried=True)


def _instructions_gemini(view: SourceView, plan: Plan) -> None:
    for folder, (texts, sources) in _folder_texts(view, plan, "gemini", keep_imports=True, path_scoped=False).items():
        plan.add("gemini", f"{folder}/GEMINI.md" if folder else "GEMINI.md", _join(texts), sources, "instruction")


def _instructions_claude(view: SourceView, plan: Plan) -> None:
    for folder, (texts, sources) in _folder_texts(view, plan, "claude", keep_imports=True, path_scoped=True).items():
        plan.add("claude", f"{folder}/CLAUDE.md" if folder else "CLAUDE.md", _join(texts), sources, "instruction")
    for rule in view.conditional:
        name = PurePosixPath(rule.path).stem
        plan.add("claude", f".claude/rules/{name}.md", _fm({"paths": list(rule.patterns)}, rule.body),
                 [rule.path], "rule")


def _instructions_copilot(view: SourceView, plan: Plan) -> None:
    """``.github/copilot-instructions.md`` for the root; a nested folder's text becomes an
    ``.instructions.md`` file with ``applyTo: "<folder>/**"``; a conditional rule one with its
    patterns."""
    for folder, (texts, sources) in _folder_texts(view, plan, "copilot", keep_imports=False, path_scoped=True).items():
        if not folder:
            plan.add("copilot", ".github/copilot-instructions.md", _join(texts), sources, "instruction")
            continue
        slug = "folder-" + folder.replace("/", "-")
        plan.add("copilot", f".github/instructions/{slug}.instructions.md",
                 _fm({"applyTo": f"{folder}/**"}, _join(texts)), sources, "instruction")
        plan.lose("copilot", "instruction", sources[0], f"carried as .github/instructions/{slug}.instructions.md "
                  f"(applyTo {folder}/**): Copilot applies it when a file below {folder}/ is in the context",
                  carried=True)
    claude_files = [p.path for ft in view.folders.values() for p in ft.pieces
                    if PurePosixPath(p.path).name == "CLAUDE.md" or p.path.startswith(".claude/rules/")]
    claude_files += [r.path for r in view.conditional if r.path.startswith(".claude/rules/")]
    for path in claude_files:
        plan.lose("copilot", "instruction", path, "Copilot CLI also reads CLAUDE.md and .claude/rules itself "
                  "(observed, 1.0.102): with both present it gets this text twice; VS Code and github.com read the "
                  ".github files", carried=True)
    for rule in view.conditional:
        name = PurePosixPath(rule.path).stem
        plan.add("copilot", f".github/instructions/{name}.instructions.md",
                 _fm({"applyTo": ",".join(rule.patterns)}, rule.body), [rule.path], "rule")


def _rules_cursor(view: SourceView, plan: Plan) -> None:
    """Cursor's own rules: the root's text an ``alwaysApply`` rule, a nested folder's text a
    rule with ``globs: <folder>/**``, a conditional rule one with its patterns (imports inlined:
    Cursor follows no ``@`` line of a rule)."""
    for folder, (texts, sources) in _folder_texts(view, plan, "cursor", keep_imports=False, path_scoped=True).items():
        slug = "folder-" + folder.replace("/", "-") if folder else "project"
        meta = {"alwaysApply": True} if not folder else {"globs": f"{folder}/**", "alwaysApply": False}
        plan.add("cursor", f".cursor/rules/{slug}.mdc", _fm(meta, _join(texts)), sources, "instruction")
    for rule in view.conditional:
        name = PurePosixPath(rule.path).stem
        meta = {"description": rule.description or None, "globs": ",".join(rule.patterns), "alwaysApply": False}
        plan.add("cursor", f".cursor/rules/{name}.mdc", _fm(meta, rule.body), [rule.path], "rule")


# ---- skills ------------------------------------------------------------------------------


def _skill_files(view: SourceView, plan: Plan, target: str, skill) -> list[tuple[str, bytes]] | None:
    """The files of a skill folder (relative to it), read through :mod:`wskit.fs` (no links,
    no secrets, bounded); None (and a loss) when it cannot be copied whole."""
    from wskit.errors import SafeFsError
    from wskit.fs import read_bytes

    out: list[tuple[str, bytes]] = []
    total = 0
    top = os.path.join(view.root, skill.folder)
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames.sort()
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                plan.lose(target, "skill", skill.name, f"{_rel(view.root, os.path.join(dirpath, d))} is a link: "
                          "not copied (an export never follows links)", carried=True)
                dirnames.remove(d)
        for name in sorted(filenames):
            rel = _rel(view.root, os.path.join(dirpath, name))
            try:
                data = read_bytes(view.root, rel, max_bytes=MAX_SKILL_BYTES).raw
            except SafeFsError as err:
                plan.lose(target, "skill", skill.name, f"{rel} not copied: {err}", carried=True)
                continue
            total += len(data)
            out.append((_rel(top, os.path.join(dirpath, name)), data))
            if len(out) > MAX_SKILL_FILES or total > MAX_SKILL_BYTES:
                plan.lose(target, "skill", skill.name, f"over {MAX_SKILL_FILES} files or {MAX_SKILL_BYTES} bytes: "
                          "not copied")
                return None
    return out


def _rel(root: str, path: str) -> str:
    return PurePosixPath(os.path.relpath(path, root)).as_posix()


#: where each target reads project skills (a copy goes there); None: it reads the source's folder
_SKILL_DIR = {"codex": ".agents/skills", "gemini": ".agents/skills", "agents": ".agents/skills",
              "cursor": ".cursor/skills", "claude": ".claude/skills"}
#: the source skill folders a target already reads as they are
_READS_AS_IS = {"opencode": (".claude/skills", ".agents/skills"), "copilot": (".claude/skills", ".agents/skills"),
                "codex": (".agents/skills",), "gemini": (".agents/skills", ".gemini/skills"),
                "agents": (".agents/skills",), "claude": (".claude/skills",), "cursor": (".cursor/skills",)}


def _skills(view: SourceView, plan: Plan, target: str) -> None:
    for skill in view.skills:
        conv = PurePosixPath(skill.folder).parent.as_posix()
        conv = conv[len(skill.base) + 1:] if skill.base else conv
        if conv in _READS_AS_IS.get(target, ()):
            plan.notes.append(Loss(target, "skill", skill.name, f"read by {target} from {skill.folder} as it is",
                                   carried=True))
            continue
        dest = _SKILL_DIR.get(target)
        if dest is None:
            plan.lose(target, "skill", skill.name, f"{target} reads no skill folder the export can write")
            continue
        if target == "gemini":
            plan.lose(target, "skill", skill.name, f"Gemini CLI reads .agents/skills of the cwd only: the copy in "
                      f"{skill.base or 'the root'} loads only for sessions started there, not in a subfolder",
                      carried=True)
        files = _skill_files(view, plan, target, skill)
        if files is None:
            continue
        prefix = f"{skill.base}/{dest}/{skill.name}" if skill.base else f"{dest}/{skill.name}"
        for rel, data in files:
            plan.add(target, f"{prefix}/{rel}", data, [f"{skill.folder}/{rel}"], "skill")


# ---- commands ----------------------------------------------------------------------------


def _positional(body: str) -> bool:
    return bool(_POSITIONAL.search(body))


def _commands(view: SourceView, plan: Plan, target: str) -> None:
    for c in view.commands:
        dropped = [k for k, v in (("model", c.model), ("allowed-tools", c.allowed_tools)) if v]
        if target == "gemini":
            body = _ALL_ARGS.sub("{{args}}", c.body)
            if _positional(c.body):
                plan.lose(target, "command", c.name, "Gemini CLI has no positional arguments: $0, $1… kept as written "
                          "and the typed arguments appended after the prompt" + ("" if "{{args}}" not in body else
                                                                               " (or put where {{args}} is)"),
                          carried=True)
            path = f".gemini/commands/{c.name.replace(':', '/')}.toml"
            data = {"description": c.description} if c.description else {}
            data["prompt"] = body
            plan.add(target, path, _toml(data), [c.path], "command")
            dropped += ["argument-hint"] if c.argument_hint else []
        elif target == "opencode":
            path = f".opencode/commands/{c.name.replace(':', '/')}.md"
            body = _POSITIONAL.sub(lambda m: "$" + str(int(m.group(1) or m.group(2)) + 1), c.body)
            plan.add(target, path, _fm({"description": c.description}, body), [c.path], "command")
            if body != c.body:
                plan.notes.append(Loss(target, "command", c.name, "positional arguments renumbered: Claude Code "
                                       "counts $0 as the first, opencode $1", carried=True))
            if ":" in c.name:
                plan.lose(target, "command", c.name, f"opencode names it /{c.name.replace(':', '/')}", carried=True)
            dropped += ["argument-hint"] if c.argument_hint else []
        elif target == "cursor":
            path = f".cursor/commands/{c.name.replace(':', '-')}.md"
            plan.add(target, path, c.body.strip() + "\n", [c.path], "command")
            if "$" in c.body and (_ALL_ARGS.search(c.body) or _positional(c.body)):
                plan.lose(target, "command", c.name, "Cursor expands no argument placeholders: $ARGUMENTS, $0… kept "
                          "as written; the text typed after the command follows the prompt", carried=True)
            if ":" in c.name:
                plan.lose(target, "command", c.name, f"Cursor names it /{c.name.replace(':', '-')}", carried=True)
            dropped += [k for k, v in (("description", c.description), ("argument-hint", c.argument_hint)) if v]
        elif target == "copilot":
            body = _ALL_ARGS.sub("${input:args}", c.body)
            body = _POSITIONAL.sub(lambda m: "${input:arg" + (m.group(1) or m.group(2)) + "}", body)
            path = f".github/prompts/{c.name.replace(':', '-')}.prompt.md"
            plan.add(target, path, _fm({"description": c.description, "argument-hint": c.argument_hint}, body),
                     [c.path], "command")
            plan.lose(target, "command", c.name, "Copilot prompt files take named inputs: $ARGUMENTS → ${input:args}, "
                      "$N → ${input:argN}, asked for by name rather than split from one line", carried=True)
            plan.lose(target, "command", c.name, "Copilot CLI loads no prompt files (observed, 1.0.102): "
                      f"{path} is a command in VS Code only, not in the CLI")
        elif target == "claude":
            meta = {"description": c.description, "argument-hint": c.argument_hint, "model": c.model,
                    "allowed-tools": ", ".join(c.allowed_tools) if c.allowed_tools else None}
            plan.add(target, f".claude/commands/{c.name.replace(':', '/')}.md", _fm(meta, c.body), [c.path],
                     "command")
            continue
        else:
            plan.lose(target, "command", c.name, {
                "codex": "Codex CLI reads custom prompts only from ~/.codex/prompts (user scope), none from a project",
                "agents": "a plain AGENTS.md tree has no commands"}.get(target, f"{target} has no project commands"))
            continue
        if dropped:
            plan.lose(target, "command", c.name, f"{', '.join(dropped)} not carried ({target} has no such field)",
                      carried=True)


# ---- agents -------------------------------------------------------------------------------

#: Claude Code tool names → Copilot custom-agent tool aliases
_COPILOT_TOOLS = {"Read": "read", "Grep": "search", "Glob": "search", "Edit": "edit", "Write": "edit",
                  "MultiEdit": "edit", "Bash": "shell", "WebFetch": "web", "WebSearch": "web", "Task": "agent"}


def _agents(view: SourceView, plan: Plan, target: str) -> None:
    for a in view.agents:
        src = [a.provenance.path]
        lost = []
        if target == "opencode":
            plan.add(target, f".opencode/agents/{a.name}.md",
                     _fm({"name": a.name, "description": a.description, "mode": "subagent"}, a.prompt), src,
                     "agent")
            lost = [k for k, v in (("tools", a.tools), ("model", a.model != "inherit" and a.model)) if v]
        elif target == "gemini":
            plan.add(target, f".gemini/agents/{a.name}.md",
                     _fm({"name": a.name, "description": a.description}, a.prompt), src, "agent")
            plan.lose(target, "agent", a.name, "Gemini CLI 0.61.0 reads .gemini/agents/*.md when its agents feature "
                      "is on (experimental.enableAgents, in its bundled source); not observed loading in the recorded "
                      "runs", carried=True)
            lost = [k for k, v in (("tools", a.tools), ("model", a.model != "inherit" and a.model)) if v]
        elif target == "copilot":
            tools = sorted({_COPILOT_TOOLS[t] for t in a.tools or () if t in _COPILOT_TOOLS})
            unknown = [t for t in a.tools or () if t not in _COPILOT_TOOLS]
            plan.add(target, f".github/agents/{a.name}.agent.md",
                     _fm({"name": a.name, "description": a.description, "tools": tools or None}, a.prompt), src,
                     "agent")
            lost = [f"tools {', '.join(unknown)}"] if unknown else []
            lost += ["model"] if a.model != "inherit" else []
        elif target == "cursor":
            plan.add(target, f".cursor/agents/{a.name}.md",
                     _fm({"name": a.name, "description": a.description}, a.prompt), src, "agent")
            plan.lose(target, "agent", a.name, f"written to .cursor/agents/{a.name}.md, but the Cursor profile "
                      "(its documentation, docs/compatibility.md) loads no project subagents: not verified")
            lost = [k for k, v in (("tools", a.tools), ("model", a.model != "inherit" and a.model)) if v]
        elif target == "claude":
            meta = {"name": a.name, "description": a.description,
                    "tools": ", ".join(a.tools) if a.tools else None,
                    "model": a.model if a.model != "inherit" else None}
            plan.add(target, f".claude/agents/{a.name}.md", _fm(meta, a.prompt), src, "agent")
        else:
            plan.lose(target, "agent", a.name, {"codex": "Codex CLI reads no project subagent files",
                                                "agents": "a plain AGENTS.md tree has no subagents"}[target])
            continue
        if lost:
            plan.lose(target, "agent", a.name, f"{', '.join(lost)} not carried: {target} gives the agent its own "
                      "defaults", carried=True)


# ---- MCP servers -------------------------------------------------------------------------


def _vars(value: str, form: str | None) -> str | None:
    """``${VAR}`` rewritten to the target's form (``{env:VAR}``, ``${env:VAR}``); None when
    the target expands none (the caller reports it)."""
    if not _VAR.search(value):
        return value
    if form is None:
        return None
    return _VAR.sub(lambda m: form.format(m.group(1)), value)


def _server_value(plan: Plan, target: str, server, value, form: str | None):
    if isinstance(value, str):
        out = _vars(value, form)
        if out is None:
            plan.lose(target, "mcp_server", server.name, f"{target} does not expand ${{VAR}}: {value!r} kept as "
                      "written", carried=True)
            return value
        return out
    if isinstance(value, (list, tuple)):
        return [_server_value(plan, target, server, v, form) for v in value]
    if isinstance(value, dict):
        return {k: _server_value(plan, target, server, v, form) for k, v in value.items()}
    return value


def _mcp(view: SourceView, plan: Plan, target: str) -> None:
    if not view.servers:
        return
    srcs = sorted({s.provenance.path for s in view.servers})
    if target in ("agents",):
        for s in view.servers:
            plan.lose(target, "mcp_server", s.name, "a plain AGENTS.md tree has no MCP configuration")
        return
    if target == "copilot":
        plan.notes.append(Loss(target, "mcp_server", ", ".join(s.name for s in view.servers),
                               "Copilot CLI reads .mcp.json as it is; .vscode/mcp.json is written for VS Code",
                               carried=True))
    out: dict = {}
    for s in view.servers:
        v = lambda value, form: _server_value(plan, target, s, value, form)  # noqa: E731
        cfg = s.config
        if target == "codex":
            if s.transport == "stdio":
                entry = {"command": s.command, "args": list(s.args)}
                passthrough = [k for k, val in s.env.items() if val == "${" + k + "}"]  # Codex passes K through
                env = {k: val for k, val in s.env.items() if k not in passthrough}
                if env:
                    entry["env"] = v(env, None)
                if passthrough:
                    entry["env_vars"] = passthrough
                entry["args"] = v(list(s.args), None)
                if s.cwd:
                    entry["cwd"] = s.cwd
            elif s.transport == "http":
                entry = {"url": s.url}
                headers, env_headers = {}, {}
                for k, val in s.headers.items():
                    m = re.fullmatch(r"Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}", val)
                    m2 = _VAR.fullmatch(val)
                    if k.lower() == "authorization" and m:
                        entry["bearer_token_env_var"] = m.group(1)
                    elif m2:
                        env_headers[k] = m2.group(1)
                    else:
                        headers[k] = v(val, None)
                if headers:
                    entry["http_headers"] = headers
                if env_headers:
                    entry["env_http_headers"] = env_headers
            else:
                plan.lose(target, "mcp_server", s.name, f"Codex CLI has no {s.transport} transport")
                continue
        elif target == "gemini":
            if s.transport == "stdio":
                entry = {"command": s.command, "args": list(s.args), "env": dict(s.env), "cwd": s.cwd}
            elif s.transport == "http":
                entry = {"httpUrl": s.url, "headers": dict(s.headers)}
            elif s.transport == "sse":
                entry = {"url": s.url, "headers": dict(s.headers)}
            else:
                plan.lose(target, "mcp_server", s.name, f"Gemini CLI has no {s.transport} transport")
                continue
            entry = {k: val for k, val in entry.items() if val not in (None, {}, [])}
        elif target == "opencode":
            if s.transport == "stdio":
                entry = {"type": "local", "command": v([s.command, *s.args], "{{env:{}}}")}
                if s.env:
                    entry["environment"] = v(dict(s.env), "{{env:{}}}")
                if s.cwd:
                    plan.lose(target, "mcp_server", s.name, "opencode has no cwd for a local server", carried=True)
            elif s.transport in ("http", "sse"):
                entry = {"type": "remote", "url": v(s.url, "{{env:{}}}")}
                if s.headers:
                    entry["headers"] = v(dict(s.headers), "{{env:{}}}")
            else:
                plan.lose(target, "mcp_server", s.name, f"opencode has no {s.transport} transport")
                continue
        elif target in ("cursor", "copilot"):  # Claude Code's own shape, ${env:VAR} (VS Code adds "type")
            if s.transport not in ("stdio", "http", "sse"):
                plan.lose(target, "mcp_server", s.name, f"{target} has no {s.transport} transport")
                continue
            local = s.transport == "stdio"
            entry = {"type": s.transport} if target == "copilot" else {}
            entry.update({"command": s.command, "args": v(list(s.args), "${{env:{}}}")} if local
                         else {"url": v(s.url, "${{env:{}}}")})
            extra = s.env if local else s.headers
            if extra:
                entry["env" if local else "headers"] = v(dict(extra), "${{env:{}}}")
        elif target == "claude":
            entry = dict(cfg) if cfg else ({"command": s.command, "args": list(s.args), "env": dict(s.env)}
                                           if s.transport == "stdio" else
                                           {"type": s.transport, "url": s.url, "headers": dict(s.headers)})

        else:
            continue
        for key in ("timeout", "oauth"):
            if key in cfg:
                plan.lose(target, "mcp_server", s.name, f"{key!r} not carried", carried=True)
        out[s.name] = entry
    if not out:
        return
    if target == "codex":
        plan.add(target, ".codex/config.toml", _toml({"mcp_servers": out}), srcs, "mcp_server")
    elif target == "gemini":
        plan.add(target, ".gemini/settings.json", _json({"mcpServers": out}), srcs, "mcp_server")
    elif target == "opencode":
        plan.add(target, "opencode.json", _json({"$schema": "https://opencode.ai/config.json", "mcp": out}), srcs,
                 "mcp_server")
    elif target == "cursor":
        plan.add(target, ".cursor/mcp.json", _json({"mcpServers": out}), srcs, "mcp_server")
    elif target == "copilot":
        plan.add(target, ".vscode/mcp.json", _json({"servers": out}), srcs, "mcp_server")
    elif target == "claude":
        plan.add(target, ".mcp.json", _json({"mcpServers": out}), srcs, "mcp_server")


def _hooks(view: SourceView, plan: Plan, target: str) -> None:
    for h in view.hooks:
        plan.lose(target, "hook", f"{h.event}:{h.matcher or '*'}",
                  f"{target}'s hook events and payloads are not Claude Code's: the hook is not carried")


def build_plan(view: SourceView, targets: list[str]) -> Plan:
    """The files every target in ``targets`` needs and what each loses.

    :raises ValueError: an unknown target name.
    """
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        raise ValueError(f"unknown export target(s) {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    plan = Plan()
    for target in targets:
        if target == view.source:
            plan.notes.append(Loss(target, "all", view.root, "the source's own layout: nothing to write",
                                   carried=True))
            continue
        for path in view.personal:
            plan.lose(target, "personal", path, "personal (local) files and settings are not exported into "
                      "shared files")
        if target in ("codex", "opencode", "agents"):
            _instructions_agents_md(view, plan, target)
        elif target == "gemini":
            _instructions_gemini(view, plan)
        elif target == "copilot":
            _instructions_copilot(view, plan)
        elif target == "claude":
            _instructions_claude(view, plan)
        if target == "cursor":
            _rules_cursor(view, plan)
        _skills(view, plan, target)
        _commands(view, plan, target)
        _agents(view, plan, target)
        _mcp(view, plan, target)
        _hooks(view, plan, target)
    return plan
