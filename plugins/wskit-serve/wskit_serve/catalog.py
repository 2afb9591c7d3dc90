"""What ``wsctl serve`` serves for one workspace, without the MCP SDK.

A :class:`ServedWorkspace` is one connection's view: a session snapshot of the
workspace (:func:`wskit.session.snapshot`), so one conversation sees a stable
set until the server replaces it after a change and tells the client
(``notifications/*/list_changed``). Everything here is read-only:

- **skills**: listed (name, description, id), paged; a skill is loaded through
  the skill runtime (:class:`~wskit.builtin_plugins.skills.workflows.SkillWorkflows`:
  the skills switch, the per-file byte limit, links and special files refused,
  ``allowed-tools`` recorded and returned); each skill is also a resource
  ``skill://<id>`` (the id percent-encoded);
- **rules**: the static rules (in the server ``instructions`` and the resource
  ``rules://static``), the contextual rules for a path (``rules_for``) and every
  candidate with why it applies or not (``explain``), as ``wsctl rules --for``
  and ``wsctl rules explain`` answer them;
- **commands** as prompts: arguments mapped (named ``arguments`` of the
  frontmatter, else one ``arguments`` string split as a shell would, never run);
  ``@file`` is confined to the execution root by the command expansion, and
  `` !`cmd` `` is never run (no runner is given);
- **plugin bundles**: their skills and commands under ``<plugin>:<name>``, as
  Claude Code spells plugin commands.

Trust applies exactly as for ``wsctl inspect``: the workspace was loaded with the
trust gate, so an untrusted project contributes nothing and the instructions say
why. Every answer is bounded (:class:`ServeLimits`); a path outside the
workspace is refused (:class:`ServeError`), never read.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any
from urllib.parse import quote, unquote

from wskit.errors import WskitError
from wskit.values import FrozenValue

__all__ = ["SKILL_SCHEME", "STATIC_RULES_URI", "ServeError", "ServeLimits", "ServedWorkspace", "served_name"]

#: URI scheme of a served skill: ``skill://<percent-encoded id>``.
SKILL_SCHEME = "skill://"
#: URI of the static rules resource.
STATIC_RULES_URI = "rules://static"


class ServeError(WskitError):
    """A request the server refuses: an unknown name, a path outside the workspace,
    a result over the size limit, a skill the runtime refuses. The message is what
    the client's model sees."""


class ServeLimits(FrozenValue):
    """Bounds of every answer.

    :ivar max_result_bytes: UTF-8 bytes of one tool result, prompt or resource
        (default 1 MiB); over it the request fails with a message naming the
        size and the limit, never a cut body.
    :ivar page_size: skills per ``skills_list`` page when the client asks for no
        ``limit`` (default 200; at most 1000 per page).
    :ivar instructions_bytes: bytes of the server ``instructions`` (static rules
        and skills catalog; default 64 KiB); what does not fit is named by count
        with the tool that lists it.
    """

    max_result_bytes: int = 1 << 20
    page_size: int = 200
    instructions_bytes: int = 64 << 10

    def __post_init__(self) -> None:
        for name in ("max_result_bytes", "page_size", "instructions_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")


def served_name(resource: Any) -> str:
    """The name a client sees: ``<plugin>:<name>`` for a plugin bundle's resource,
    else the bare name (Claude Code's spelling of plugin commands and skills)."""
    return f"{resource.plugin}:{resource.name}" if resource.plugin else resource.name


def _by_served_name(resources: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in resources:
        name = served_name(r)
        out[r.id if name in out else name] = r  # a clash is served under its qualified id
    return out


class ServedWorkspace:
    """One connection's served set: a snapshot of ``workspace``.

    :param workspace: a :class:`~wskit.workspace.WorkspaceResources` (loaded with the trust gate).
    :param limits: the :class:`ServeLimits`.
    """

    def __init__(self, workspace: Any, limits: ServeLimits | None = None) -> None:
        from wskit.session import snapshot

        self.workspace = workspace
        self.limits = limits or ServeLimits()
        self.session = snapshot(workspace)
        self.workflows = self.session.skill_workflows  # the skills built-in's session component
        self.skill_runtime = self.workflows.runtime
        self._skills = _by_served_name(self.skill_runtime.list())
        self._commands = _by_served_name([c for c in self.session.registry("command").active()
                                          if not getattr(c, "disable_model_invocation", False)])
        self._signature: str | None = None

    # -- identity ------------------------------------------------------------

    @property
    def trusted(self) -> bool:
        """Whether the project's own content is served (the workspace trust decision)."""
        return bool(self.workspace.trust.trusted)

    @property
    def root(self) -> str:
        """The execution root: relative paths of requests are taken from here."""
        return str(self.workspace.binding.execution_root)

    def signature(self) -> str:
        """Hex SHA-256 over what a client can list: skill, command and rule ids with
        their digests, and the trust state. Equal signatures: nothing to notify.
        Computed once per snapshot (it is immutable); the rules part reads the whole
        project through the catalog."""
        if self._signature is None:
            self._signature = self._compute_signature()
        return self._signature

    def _compute_signature(self) -> str:
        h = hashlib.sha256()
        h.update(b"trusted" if self.trusted else b"untrusted")
        for kind, table in (("skill", self._skills), ("command", self._commands)):
            for name, r in sorted(table.items()):
                h.update(f"\0{kind}\0{name}\0{r.id}\0{r.provenance.sha256 or ''}".encode())
        catalog = self._catalog()
        if catalog is not None:
            for rule in catalog.rules():
                h.update(f"\0rule\0{rule.id}\0{rule.sha256}".encode())
        return h.hexdigest()

    # -- bounds --------------------------------------------------------------

    def bounded(self, data: Any) -> str:
        """``data`` as JSON text, or :class:`ServeError` when over ``max_result_bytes``."""
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=1)
        size = len(text.encode("utf-8"))
        if size > self.limits.max_result_bytes:
            raise ServeError(f"the result is {size} bytes, over the server's limit of "
                             f"{self.limits.max_result_bytes} bytes (wsctl serve --max-result-bytes)")
        return text

    # -- skills --------------------------------------------------------------

    def list_skills(self, offset: int = 0, limit: int | None = None, query: str | None = None) -> dict[str, Any]:
        """One page of the skills catalog.

        :param offset: index of the first skill (sorted by served name).
        :param limit: skills in the page (default ``page_size``; at most 1000).
        :param query: keep skills whose name or description contains it (case-insensitive).
        :returns: ``{"skills": [{"name", "id", "description", "when_to_use"?, "plugin"?}],
            "total", "offset", "next_offset"}`` (``next_offset`` None on the last page).
        """
        if offset < 0 or (limit is not None and not 1 <= limit <= 1000):
            raise ServeError("offset must be >= 0 and limit between 1 and 1000")
        items = sorted(self._skills.items())
        if query:
            q = query.casefold()
            items = [(n, s) for n, s in items if q in n.casefold() or q in (s.description or "").casefold()]
        size = limit or min(self.limits.page_size, 1000)
        page = items[offset:offset + size]
        out = []
        for name, s in page:
            entry: dict[str, Any] = {"name": name, "id": s.id, "description": s.description}
            if s.when_to_use:
                entry["when_to_use"] = s.when_to_use
            if s.plugin:
                entry["plugin"] = s.plugin
            out.append(entry)
        nxt = offset + size if offset + size < len(items) else None
        return {"skills": out, "total": len(items), "offset": offset, "next_offset": nxt}

    def skill(self, name: str) -> Any:
        """The skill served as ``name`` (served name or qualified id).

        :raises ServeError: unknown, or ambiguous, with the names it could mean.
        """
        found = self._skills.get(name)
        if found is None:
            from wskit.errors import AmbiguousNameError

            try:
                found = self.session.registry("skill").find(name)
            except AmbiguousNameError as err:
                raise ServeError(str(err)) from None
            if found is None or found.id not in {s.id for s in self._skills.values()}:
                import difflib

                near = difflib.get_close_matches(name, list(self._skills), n=3)
                hint = f"; did you mean {', '.join(near)}?" if near else ""
                raise ServeError(f"unknown skill {name!r}{hint} (skills_list lists them)")
        return found

    def load_skill(self, name: str, file: str | None = None, arguments: str | None = None) -> dict[str, Any]:
        """Load a skill's ``SKILL.md`` body (its workflow starts, ``allowed_tools``
        recorded) or one named file of its folder, through the skill runtime.

        :returns: :meth:`SkillContent.to_json` plus ``"id"`` and, for ``SKILL.md``, ``"files"``
            (the other files of the folder, which ``file=`` can load).
        :raises ServeError: unknown skill, refused content (``SKILL_CONTENT_REJECTED``:
            over the file limit, a link, not text…), or a result over the limit.
        """
        from wskit.builtin_plugins.skills import SkillError

        sk = self.skill(name)
        try:
            if file in (None, "", "SKILL.md"):
                content = self.workflows.activate(sk.id, arguments)
                # the activation records exist to resume a session; a served connection is
                # never resumed, and kept they grew by one per call for the connection's life
                self.workflows.records.clear()
                data = content.to_json()
                listing = self.skill_runtime.list_files(sk)
                data["files"] = [f for f in listing["files"] if f != "SKILL.md"]
            else:
                data = self.skill_runtime.read(sk, file, arguments).to_json()
        except SkillError as err:
            raise ServeError(f"{err.code}: {err}") from None
        data["id"] = sk.id
        return data

    # -- rules ---------------------------------------------------------------

    def _catalog(self):
        return self.workspace.catalog("rules")

    def _target(self, path: str) -> str:
        """``path`` (relative to the execution root, or absolute) in the source project.

        :raises ServeError: empty, NUL, or outside the workspace.
        """
        if not path or "\0" in path:
            raise ServeError("path must be a non-empty path without NUL")
        b = self.workspace.binding
        absolute = os.path.normpath(os.path.join(self.root, path))
        mapped = str(b.to_source(absolute))
        catalog = self._catalog()
        root = str(b.source_root)
        inside = (catalog.relative(mapped) is not None if catalog is not None
                  else mapped == root or mapped.startswith(root.rstrip(os.sep) + os.sep))
        if not inside:
            raise ServeError(f"{path!r} is outside the workspace {self.root}; only its files can be asked about")
        return mapped

    def static_rules(self) -> dict[str, Any]:
        """The static rules for the execution root: ``{"text", "files": [refs]}``
        (``text`` is the tagged block wskit puts in a system prompt)."""
        from wskit.builtin_plugins.rules import render_text

        catalog = self._catalog()
        if catalog is None:
            return {"text": "", "files": []}
        sel = catalog.static_rules(str(self.workspace.binding.to_source(self.root)))
        return {"text": render_text(sel), "files": [r.to_ref_json() for r in sel.files]}

    def rules_for(self, path: str) -> dict[str, Any]:
        """The contextual instruction files for ``path`` (those the static rules do
        not already hold), with provenance: ``{"path", "text", "files": [refs]}``.

        :raises ServeError: ``path`` outside the workspace.
        """
        from wskit.builtin_plugins.rules import render_text

        target = self._target(path)
        catalog = self._catalog()
        if catalog is None:
            return {"path": path, "text": "", "files": []}
        cwd = str(self.workspace.binding.to_source(self.root))
        static = catalog.static_rules(cwd)
        sel = catalog.contextual_rules(cwd, [target], set(static.ids))
        return {"path": catalog.relative(target), "text": render_text(sel),
                "files": [r.to_ref_json() for r in sel.files],
                "skipped": [{"path": s.rule.display_path, "reason": s.reason} for s in sel.skipped]}

    def explain(self, path: str) -> dict[str, Any]:
        """Every candidate rule file for ``path``: applies or not, and why (``wsctl rules explain``)."""
        from wskit.builtin_plugins.rules import explain_rules as explain

        target = self._target(path)
        catalog = self._catalog()
        if catalog is None:
            return {"path": path, "trusted": self.trusted, "candidates": []}
        cwd = str(self.workspace.binding.to_source(self.root))
        return {"path": catalog.relative(target), "trusted": catalog.trusted,
                "candidates": explain(catalog, target, cwd, None, self.workspace.profile)}

    # -- commands as prompts ---------------------------------------------------

    def prompts(self) -> list[dict[str, Any]]:
        """``[{"name", "description", "arguments": [{"name", "description", "required"}]}]``."""
        out = []
        for name, cmd in sorted(self._commands.items()):
            if cmd.arguments:
                args = [{"name": a, "description": f"${a}", "required": False} for a in cmd.arguments]
            else:
                hint = cmd.argument_hint or "the command's arguments ($ARGUMENTS), split as a shell would"
                args = [{"name": "arguments", "description": hint, "required": False}]
            out.append({"name": name, "description": cmd.description or "", "arguments": args})
        return out

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        """Expand the command served as ``name`` with ``arguments``.

        Shell embeds are never run and ``@file`` is read only inside the execution
        root (the command expansion's rules); their diagnostics come back too.

        :returns: ``{"description", "text", "diagnostics": [...]}``.
        :raises ServeError: unknown command, unknown argument, or a prompt over the limit.
        """
        from wskit.builtin_plugins.commands import split_args

        cmd = self._commands.get(name)
        if cmd is None:
            import difflib

            near = difflib.get_close_matches(name, list(self._commands), n=3)
            raise ServeError(f"unknown command {name!r}" + (f"; did you mean {', '.join(near)}?" if near else ""))
        arguments = dict(arguments or {})
        if cmd.arguments:
            unknown = sorted(set(arguments) - set(cmd.arguments))
            if unknown:
                raise ServeError(f"command {name!r} has no argument {', '.join(unknown)}; "
                                 f"its arguments: {', '.join(cmd.arguments)}")
            words = [arguments.get(a, "") for a in cmd.arguments]
            while words and words[-1] == "":
                words.pop()
        else:
            unknown = sorted(set(arguments) - {"arguments"})
            if unknown:
                raise ServeError(f"command {name!r} takes one argument 'arguments', not {', '.join(unknown)}")
            words = split_args(arguments.get("arguments", ""))
        result = self.workspace.hooks.expand_command(cmd, words, self.root)
        root = str(self.workspace.binding.source_root)
        diags = [d.to_json(root) for d in result.diagnostics]
        description = cmd.description or ""
        not_run = sum(1 for d in result.diagnostics if d.code == "command-shell-not-run")
        if not_run:  # the model sees the raw !`cmd` text: say why, so it runs them itself if it should
            description += (f"{' ' if description else ''}({not_run} shell embed(s) left as written: "
                            "wsctl serve never runs commands)")
        data = {"description": description, "text": result.text, "diagnostics": diags}
        self.bounded(result.text)
        return data

    # -- resources ---------------------------------------------------------------

    def resources(self) -> list[dict[str, Any]]:
        """``[{"uri", "name", "description", "mime_type"}]``: the static rules and one per skill."""
        out = [{"uri": STATIC_RULES_URI, "name": "static-rules", "mime_type": "text/markdown",
                "description": "The workspace's static instruction files (AGENTS.md, CLAUDE.md, rules)"}]
        for name, s in sorted(self._skills.items()):
            out.append({"uri": SKILL_SCHEME + quote(s.id, safe=""), "name": name,
                        "description": s.description, "mime_type": "text/markdown"})
        return out

    def resource_templates(self) -> list[dict[str, Any]]:
        """``[{"uri_template", "name", "description"}]``: a file of a skill's folder."""
        return [{"uri_template": SKILL_SCHEME + "{id}/{file}", "name": "skill-file", "mime_type": "text/plain",
                 "description": "A file of a skill's folder: {id} as in skill://<id>, {file} relative to the "
                                "folder (skill_load with file= lists them)"}]

    def read_resource(self, uri: str) -> str:
        """The text of ``uri``: the static rules block, a skill's ``SKILL.md`` body
        (``skill://<id>``) or one file of its folder (``skill://<id>/<file>``, read as
        :meth:`load_skill` reads it).

        :raises ServeError: an unknown URI, or what :meth:`load_skill` raises.
        """
        if uri == STATIC_RULES_URI:
            return self.bounded(self.static_rules()["text"])
        if uri.startswith(SKILL_SCHEME):
            head, _, file = uri[len(SKILL_SCHEME):].partition("/")
            sid = unquote(head)
            if sid in {s.id for s in self._skills.values()}:
                return self.bounded(self.load_skill(sid, unquote(file) or None)["content"])
        raise ServeError(f"unknown resource {uri!r}")

    # -- instructions ------------------------------------------------------------

    def instructions(self) -> str:
        """The server ``instructions``: what wskit serves, the static rules and the
        skills catalog (``<available_skills>``), within ``instructions_bytes``;
        for an untrusted project, why its content is not served."""
        budget = self.limits.instructions_bytes
        parts = [f"wskit serves the workspace {self.root}: skills (skills_list, skill_load), "
                 "instruction files for a path (rules_for, rules_explain) and custom commands as prompts."]
        if not self.trusted:
            reason = self.workspace.trust.reason()
            parts.append(f"This project is not trusted ({reason}): none of its own skills, rules or commands "
                         f"are served; user and plugin ones are. Trust it with: wsctl trust grant {self.root}")
        static = self.static_rules()["text"]
        if static and len(static.encode()) <= budget // 2:
            parts.append(static)
        elif static:
            parts.append("The static instruction files are too large for these instructions: "
                         f"read the resource {STATIC_RULES_URI}.")
        used = sum(len(p.encode()) for p in parts)
        lines, shown = [], 0
        skills = sorted(self._skills.items())
        for name, s in skills:
            line = f"<skill><name>{name}</name><description>{s.description}</description></skill>"
            if used + len(line.encode()) + 64 > budget:
                break
            lines.append(line)
            used += len(line.encode()) + 1
            shown += 1
        if skills:
            block = "<available_skills>\n" + "\n".join(lines) + "\n</available_skills>"
            if shown < len(skills):
                block += f"\n{len(skills) - shown} more skills are not shown here: call skills_list."
            parts.append("Load a skill with skill_load when the task matches its description.\n" + block)
        return "\n\n".join(parts)
