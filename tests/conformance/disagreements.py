"""Issue 34's disagreements with Claude Code, asked of its ``system/init`` line and of the
request it sends a stand-in model, beside wskit's answer under ``--host claude``.

Each case lays out a home and a git project (``~/`` paths in the home, ``{P}`` in a file's
text is the project's absolute path, ``{H}`` the home's), optional ``--plugin-dir`` folders
(``plugin/<name>/...`` paths) and links (path -> target), trusts the project in both
(``~/.claude.json``'s ``hasTrustDialogAccepted``; wskit's trust store) and compares the
parts it names: ``skills``, ``slash_commands``, ``agents`` (names the init line adds to an
empty run's), ``mcp`` (``[name, status]`` of the init line; wskit: ``[name, "failed"]`` for
a server that cannot start, ``"pending"`` otherwise) and ``prompt`` (the markers
``S:<x>`` in the system prompt and first message).

``python -m tests.conformance.disagreements`` asks the installed Claude Code and rewrites
``disagreements_recorded.json``; ``test_disagreements.py`` compares in the default run
(``WSKIT_HOST_ORACLES=1``: with the live host too).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.conformance import oracles

__all__ = ["CASES", "DisCase", "RECORDED", "ask_claude", "load", "main", "wskit_answer"]

RECORDED = Path(__file__).with_name("disagreements_recorded.json")
_MARK = re.compile(r"S:([A-Za-z0-9_./~-]+)")


@dataclass(frozen=True)
class DisCase:
    """One tree and the parts of the answer compared."""

    id: str
    files: dict[str, str]
    compare: tuple[str, ...]
    links: dict[str, str] = field(default_factory=dict)
    what: str = ""

    def lay_out(self, base: Path) -> tuple[Path, Path, list[Path]]:
        project, home = base / "p", base / "h"
        project.mkdir(parents=True)
        home.mkdir(parents=True)
        dirs: list[Path] = []
        for path, text in self.files.items():
            if path.startswith("~/"):
                where = home / path[2:]
            elif path.startswith("plugin/"):
                where = base / path
                d = base / "plugin" / path.split("/")[1]
                if d not in dirs:
                    dirs.append(d)
            else:
                where = project / path
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text(text.replace("{P}", str(project)).replace("{H}", str(home)))
        for path, target in self.links.items():
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, project / path)
        claude_json = home / ".claude.json"
        data = json.loads(claude_json.read_text()) if claude_json.exists() else {}
        data.setdefault("projects", {}).setdefault(str(project), {})["hasTrustDialogAccepted"] = True
        claude_json.write_text(json.dumps(data))
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        return project, home, dirs


def _fm(body: str, **keys: str) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in keys.items()) + "---\n" + body + "\n"


CASES: tuple[DisCase, ...] = (
    DisCase("empty-url-servers", {
        "plugin/kw/.claude-plugin/plugin.json": '{"name": "kw", "version": "1.0.0"}',
        "plugin/kw/.mcp.json": json.dumps({"mcpServers": {"gmail": {"type": "http", "url": ""},
                                                          "google calendar": {"type": "http", "url": ""},
                                                          "slack": {"type": "http", "url": ""}}})},
        compare=("mcp",), what="item 1: a plugin's http servers with an empty url are each listed (failed)"),
    DisCase("skill-command-scopes", {
        "~/.claude/skills/review/SKILL.md": _fm("Body", name="review", description="home skill"),
        ".claude/commands/review.md": _fm("Body", description="project command"),
        ".claude/skills/deploy/SKILL.md": _fm("Body", name="deploy", description="project skill"),
        "~/.claude/commands/deploy.md": _fm("Body", description="home command")},
        compare=("skills", "slash_commands", "prompt_listing"),
        what="item 4: a skill and a command of one name in different scopes: one slash command, the skill"),
    DisCase("skill-file-link-inside", {
        "docs/skill-body.md": _fm("Body", name="sk-linked", description="linked skill file"),
        ".claude/skills/sk-plain/SKILL.md": _fm("Body", name="sk-plain", description="plain")},
        links={".claude/skills/sk-linked/SKILL.md": "../../../docs/skill-body.md"},
        compare=("skills",), what="item 8: a SKILL.md that is a link to a file inside the project"),
    DisCase("claude-json-mcpjson-choices", {
        ".mcp.json": json.dumps({"mcpServers": {n: {"command": "nonexistent-cmd"} for n in ("on", "off", "asked")}}),
        "~/.claude.json": json.dumps({"projects": {"{P}": {"enabledMcpjsonServers": ["on"],
                                                           "disabledMcpjsonServers": ["off"]}}})},
        compare=("mcp",),
        what="item 7: ~/.claude.json's per-project enabledMcpjsonServers / disabledMcpjsonServers"),
    DisCase("agent-name-space", {
        ".claude/agents/rev.md": _fm("Body", name="Code Reviewer", description="reviews"),
        ".claude/agents/plain.md": _fm("Body", name="plain-agent", description="plain")},
        compare=("agents",), what="item 10: an agent named with a space"),
    DisCase("dropped-plugin-folder", {
        "~/.claude/plugins/dropped/.claude-plugin/plugin.json": '{"name": "dropped", "version": "1.0.0"}',
        "~/.claude/plugins/dropped/skills/sk-dropped/SKILL.md": _fm("Body", name="sk-dropped", description="d"),
        "~/.claude/plugins/data/skills/sk-data/SKILL.md": _fm("Body", name="sk-data", description="d")},
        compare=("skills",), what="item 3: plugin folders dropped in ~/.claude/plugins (Claude Code's own folder)"),
    DisCase("bundled-skill-name", {
        ".claude/skills/simplify/SKILL.md": _fm("Body", name="simplify", description="PROJECT-simplify")},
        compare=("prompt_listing",), what="item 10: a project skill named like one of Claude Code's bundled skills"),
    # item 10's output styles: the style ``outputStyle`` selects reaches the system prompt
    # (its body's marker), which shows which of two same-named styles wins and which
    # spelling of a name resolves
    DisCase("style-same-name", {
        "~/.claude/output-styles/zz.md": _fm("S:style-user", name="Dup", description="user"),
        ".claude/output-styles/aa.md": _fm("S:style-project", name="Dup", description="project"),
        ".claude/settings.json": '{"outputStyle": "Dup"}'},
        compare=("style",), what="item 10: a user and a project output style of one name: the project's"),
    DisCase("style-same-name-user-setting", {
        "~/.claude/output-styles/aa.md": _fm("S:style-user", name="Dup", description="user"),
        ".claude/output-styles/zz.md": _fm("S:style-project", name="Dup", description="project"),
        "~/.claude/settings.json": '{"outputStyle": "Dup"}'},
        compare=("style",), what="item 10: the same, selected in the user's settings: still the project's"),
    DisCase("style-file-case", {
        ".claude/output-styles/MyStyle.md": _fm("S:style-nameless", description="no name"),
        ".claude/settings.json": '{"outputStyle": "MyStyle"}'},
        compare=("style",), what="item 10: a style without name is named by its file, case kept"),
    DisCase("style-file-case-lower", {
        ".claude/output-styles/MyStyle.md": _fm("S:style-nameless", description="no name"),
        ".claude/settings.json": '{"outputStyle": "mystyle"}'},
        compare=("style",), what="item 10: the lower-cased file name selects nothing"),
    DisCase("style-nested-name", {
        ".claude/output-styles/Sub/Deep.md": _fm("S:style-deep", description="nested"),
        ".claude/settings.json": '{"outputStyle": "Deep"}'},
        compare=("style",), what="item 10: a nested style without name is named by its file alone"),
    DisCase("style-plugin-namespace", {
        "plugin/pk/.claude-plugin/plugin.json": '{"name": "pk", "version": "1.0.0"}',
        "plugin/pk/output-styles/x.md": _fm("S:style-plugin", name="Dup", description="plugin"),
        ".claude/output-styles/p.md": _fm("S:style-project", name="Dup", description="project"),
        ".claude/settings.json": '{"outputStyle": "pk:Dup"}'},
        compare=("style",), what="item 10: a plugin's style is <plugin>:<name> and shadows no project style"),
)


def load() -> dict:
    """The committed recording: ``{"claude": {"version", "recorded", "cases": {id: answer}}}``."""
    return json.loads(RECORDED.read_text()) if RECORDED.exists() else {}


def _init_and_prompt(cwd: Path, home: Path, dirs: list[Path]) -> tuple[dict, str, str]:
    srv = oracles._StandIn()
    try:
        env = oracles._env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{srv.port}", ANTHROPIC_API_KEY="x",
                           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        args = [a for d in dirs for a in ("--plugin-dir", str(d))]
        out = oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json",
                            "--verbose", *args], cwd, env, until=lambda s: "\n" in s and bool(srv.bodies), timeout=90)
    finally:
        srv.close()
    init = json.loads(out.splitlines()[0]) if out.strip() else {}
    prompt, everything = "", ""
    for b in srv.bodies:
        try:
            body = json.loads(b)
        except ValueError:
            continue
        if body.get("messages"):
            prompt = json.dumps(body.get("system")) + json.dumps(body["messages"][0].get("content"))
            everything = b.decode("utf-8", "replace")
            break
    return init, prompt.replace("\\n", "\n"), everything


def ask_claude(case: DisCase) -> dict:
    """Claude Code's answer to ``case`` (built-ins of an empty run subtracted)."""
    base = Path(tempfile.mkdtemp(prefix="wskit-dis-"))
    empty = Path(tempfile.mkdtemp(prefix="wskit-dis-empty-"))
    try:
        (empty / "p").mkdir()
        (empty / "h").mkdir()
        subprocess.run(["git", "init", "-q", str(empty / "p")], check=True)
        builtin, _, _ = _init_and_prompt(empty / "p", empty / "h", [])
        project, home, dirs = case.lay_out(base)
        init, prompt, body = _init_and_prompt(project, home, dirs)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(empty, ignore_errors=True)

    def added(key: str) -> list:
        known = {json.dumps(x, sort_keys=True) for x in builtin.get(key, [])}
        return [x for x in init.get(key, []) if json.dumps(x, sort_keys=True) not in known]

    listing = {}
    # only the names the case lays out: Claude Code lists its own bundled skills (simplify) in every run
    for name in (n for n in ("review", "deploy", "simplify") if any(f"/{n}/" in p or f"/{n}.md" in p for p in case.files)):
        m = re.search(rf"- {name}: ([^\\]*?)\\n", body)
        if m:
            listing[name] = m.group(1)
    # the selected output style: a system message "# Output Style: <name>" then its body
    styled = re.search(r"# Output Style: ([^\\]*)\\n", body)
    style = {"name": styled.group(1) if styled else None,
             "markers": sorted(set(re.findall(r"S:(style-[a-z-]+)", body)))}
    return {"skills": sorted(added("skills")), "slash_commands": sorted(added("slash_commands")),
            "agents": sorted(a if isinstance(a, str) else a.get("name") for a in added("agents")),
            "mcp": sorted([m["name"], m["status"]] for m in added("mcp_servers")),
            "prompt": sorted(set(_MARK.findall(prompt))), "prompt_listing": listing, "style": style}


def wskit_answer(case: DisCase, base: Path) -> dict:
    """wskit ``--host claude``'s answer to ``case``."""
    from tests.conformance.answers import _plugin_manager
    from wskit import HostProfile, WorkspaceCache
    from wskit.trust import TrustStore

    project, home, dirs = case.lay_out(base)
    TrustStore.for_home(home).grant(project)
    settings = {"plugin_dirs": [str(d) for d in dirs]} if dirs else {}
    ws = WorkspaceCache(HostProfile(name="claude", home=home, settings=settings), _plugin_manager()).resolve(
        str(project))
    skills = sorted(r.name for r in ws.registry("skill").active())
    commands = sorted(r.name for r in ws.registry("command").active())
    listing = {r.name: r.description for kind in ("skill", "command") for r in ws.registry(kind).active()
               if r.name in ("review", "deploy", "simplify")}
    return {"skills": skills, "slash_commands": sorted({*skills, *commands}),
            "agents": sorted(r.name for r in ws.registry("agent").active()),
            "style": _style(ws, project, home),
            "mcp": sorted([r.id.split(":", 1)[-1] if r.plugin is None else f"plugin:{r.plugin}:{r.name}",
                           "pending" if r.startable else "failed"] for r in _started(ws)),
            "prompt_listing": dict(sorted(listing.items()))}


def _style(ws, project: Path, home: Path) -> dict:
    """The output style Claude Code's ``outputStyle`` setting (the project's
    ``.claude/settings.json`` over the user's) names, resolved by wskit's style catalog:
    the name it is shown under and the markers of its body."""
    from wskit.builtin_plugins.styles.catalog import StyleCatalog, StyleUnavailableError

    name = None
    for settings in (home / ".claude/settings.json", project / ".claude/settings.json"):
        if settings.is_file():
            name = json.loads(settings.read_text()).get("outputStyle", name)
    try:
        style = StyleCatalog.for_resources(ws).by_name(name) if name is not None else None
    except StyleUnavailableError:
        style = None
    if style is None:
        return {"name": None, "markers": []}
    shown = f"{style.plugin}:{style.title}" if style.plugin else style.title
    return {"name": shown, "markers": sorted(set(re.findall(r"S:(style-[a-z-]+)", style.prompt)))}


def _started(ws) -> list:
    """The MCP servers Claude Code would list in its init line: the active ones not denied
    (a disabled one is left out of it)."""
    from wskit.builtin_plugins.mcp.approval import approval_status

    return [r for r in ws.registry("mcp_server").active()
            if approval_status(r, ws.binding, ws.profile) != "denied"]


def main(argv: list[str] | None = None) -> int:
    """Ask the installed Claude Code every case (or those named) and rewrite the recording."""
    from tests.conformance.standin import record_claude

    wanted = set(argv if argv is not None else sys.argv[1:])
    return record_claude(RECORDED, ((c.id, lambda c=c: ask_claude(c)) for c in CASES
                                    if not wanted or c.id in wanted))


if __name__ == "__main__":
    sys.exit(main())
