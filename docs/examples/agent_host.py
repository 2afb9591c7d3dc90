"""A complete agent host on wskit, the one docs/integrating.md walks through.

Run it: ``python docs/examples/agent_host.py`` (it builds a throw-away home and project,
drives a scripted "model" through every step and prints the transcript). Copy it as the
skeleton of a real host: replace ``ScriptedModel`` with your model client, ``ask_user``
with your prompt, and ``run_tool`` with your tools.

Steps (each a section below): 1 resolve and snapshot; 2 build the system prompt;
3 check each tool call (hooks, permission rules, the rules barrier); 4 run it;
5 feed back contextual rules and diagnostics; 6 activate skills and commands;
7 persist the state; 8 resume.

A guard that did not check a call is never taken as "allowed": the host prints each one
(``decision.skipped``) and, under ``unapproved="block"``, the call is denied. The demo
tree has one guard awaiting approval; :func:`add_guards_that_do_not_decide` adds the two
other kinds (one that fails, one a project's settings switch off) and ``GUARD_SCRIPT``
meets all three (``python docs/examples/agent_host.py --guards [block]``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from wskit import (
    Budget,
    HostProfile,
    RuntimeOptions,
    ToolDecision,
    ToolKind,
    ToolSpec,
    TrustStore,
    WorkspaceCache,
    attach,
    restore,
    snapshot,
    system_prompt,
)

__all__ = ["GUARD_SCRIPT", "add_guards_that_do_not_decide", "main", "make_demo_tree", "run_session"]

#: this host's tools: what hooks and permission rules see them as, what they do, where their paths are
TOOLS = [ToolSpec("Read", kind=ToolKind.READ, path_args=("file_path",)),
         ToolSpec("Write", kind=ToolKind.WRITE, path_args=("file_path",)),
         ToolSpec("Bash", kind=ToolKind.SHELL, command_arg="command")]


def make_demo_tree(root: Path) -> tuple[Path, Path]:
    """A home with a user hook and user permission rules, and a trusted project with an
    AGENTS.md, a path rule, a skill, a command, an output style and project permissions."""
    home, project = root / "home", root / "project"
    files = {
        home / ".claude" / "settings.json": json.dumps({
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
                      "grep -q 'rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; } || exit 0"}]}]},
            "permissions": {"allow": ["Bash(echo:*)"]}}),
        project / ".git" / "HEAD": "ref: refs/heads/main\n",
        project / "AGENTS.md": "Keep answers short.\n",
        project / ".claude" / "rules" / "release.md": "---\npaths: [RELEASE.md]\n---\nFollow Keep a Changelog.\n",
        project / ".claude" / "skills" / "release-notes" / "SKILL.md":
            "---\nname: release-notes\ndescription: Write release notes\nallowed-tools: Read Write\n---\n"
            "Collect the merged changes and write RELEASE.md.\n",
        project / ".claude" / "commands" / "ship.md": "---\ndescription: Ship a version\n---\nShip version $0.\n",
        project / ".claude" / "output-styles" / "terse.md": "---\nname: Terse\ndescription: Short\n---\nOne line.\n",
        project / ".claude" / "settings.json": json.dumps({"permissions": {
            "allow": ["Read", "Edit(./RELEASE.md)"], "ask": ["Bash(git push:*)"], "deny": ["Read(./.env)"]},
            # a project guard nobody approved yet: it does not run, and the host must say so
            "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [
                {"type": "command", "command": "sh .claude/hooks/no-secrets.sh"}]}]}}),
        project / ".claude" / "hooks" / "no-secrets.sh":
            "grep -q '[.]env' && { echo 'secrets stay unread' >&2; exit 2; } || exit 0\n",
        project / ".env": "TOKEN=secret\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    TrustStore.for_home(home).grant(project)  # the user said yes to "trust this folder?"
    return home, project


def add_guards_that_do_not_decide(home: Path, project: Path, failing: str = "nosuchprogram-audit") -> None:
    """Two more guards of the user's that will not check a call, besides the project's Read
    guard that awaits approval: a ``Bash`` audit hook that fails (``failing``: a program that
    is not there, exit 127; or one that is killed or times out), and the ``Write`` guard of
    the user's plugin ``audit``, which the project's settings switch off
    (``enabledPlugins: {"audit": false}``, as Claude Code lets a project do)."""
    user = home / ".claude" / "settings.json"
    data = json.loads(user.read_text())
    data["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [
        {"type": "command", "command": failing, "timeout": 1}]})
    user.write_text(json.dumps(data))
    plugin = home / ".claude" / "plugins" / "audit"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "audit", "version": "1.0.0"}))
    (plugin / "hooks").mkdir()
    (plugin / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": "grep -q '[.]env' && exit 2 || exit 0"}]}]}}))
    settings = project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["enabledPlugins"] = {"audit": False}
    settings.write_text(json.dumps(data))


def run_tool(tool: str, args: dict[str, Any], root: Path) -> str:
    """The host's own tools (wskit never runs a tool)."""
    if tool == "Read":
        return (root / str(args["file_path"])).read_text()
    if tool == "Write":
        (root / str(args["file_path"])).write_text(str(args["content"]))
        return f"wrote {args['file_path']}"
    if tool == "Bash":
        done = subprocess.run(["/bin/sh", "-c", args["command"]], cwd=root, capture_output=True, text=True,
                              timeout=30)
        return done.stdout.strip()
    raise ValueError(f"unknown tool {tool}")


def run_session(home: Path, project: Path, calls: list[tuple[str, dict[str, Any]]], *,
                ask_user: Callable[[ToolDecision], bool] = lambda decision: False,
                unapproved: Literal["report", "block"] = "report",
                warn: Callable[[str], object] = print) -> dict[str, Any]:
    """Drive one session through ``calls`` (the scripted model's tool calls) and resume it.

    :param unapproved: what a guard that did not run (awaiting approval) means: ``report``
        (the host tells the user, the call goes on to the permission rules) or ``block``.
    :param warn: how the host tells the user (printed here).
    :returns: the transcript and what the host saw at each step (the test reads it).
    """
    out: dict[str, Any] = {"turns": [], "guards_not_run": [], "ran": []}
    # 1. Resolve and snapshot (later edits do not change the session); attach the tool table.
    cache = WorkspaceCache(HostProfile(name="wskit", home=home))
    workspace = cache.resolve(project)
    session = snapshot(workspace)
    attach(session, RuntimeOptions(tools=TOOLS, unapproved=unapproved))
    out["diagnostics"] = [f"{d.level} {d.code}: {d.message}" for d in workspace.diagnostics if d.level != "info"]

    # 2. The system prompt: output style, static rules (AGENTS.md…), skills catalog.
    prompt = system_prompt(session, style="project:terse", skills_budget=Budget(max_bytes=8192))
    out["system_prompt"] = prompt.text
    out["prompt_provenance"] = [p["kind"] for p in prompt.provenance]

    # 6a. A user typed "/ship 1.2" before the first turn: expand the command.
    out["command"] = session.expand_command("ship", ["1.2"]).text

    for turn, (tool, args) in enumerate(calls, 1):
        if tool == "Skill":  # 6b. the skill body through the skill runtime; allowed-tools narrow the tools
            out["turns"].append((tool, session.skill_workflows.activate(args["skill"]).content.strip()))
            continue
        # 3. One decision: hooks, permission rules (an "ask" goes to ask_user), skill
        #    workflows, the rules barrier (a write held back comes with the rules to read).
        decision = session.before_tool(tool, args, tool_use_id=f"call-{turn}", ask=ask_user)
        for skipped in decision.skipped:
            # a guard that did not run is never "allowed": say which one and why (a hook
            # awaiting approval: `wsctl hooks status` shows it), every time it matters
            warn(f"guard not run for {tool}: {skipped.message}")
            out["guards_not_run"].append((turn, skipped.id, skipped.reason))
        if not decision.allowed:
            out["turns"].append((tool, decision.message()))
            continue
        # 4. Run it; 5. PostToolUse, the monitor, and the rules attached to the result.
        out["ran"].append(turn)
        result = run_tool(tool, decision.input, project)
        after = session.after_tool(tool, decision.input, result, tool_use_id=f"call-{turn}", decision=decision)
        out["turns"].append((tool, after.for_model(result)))

    # 7. Persist: one call, references and digests only (no bodies).
    state_json = session.state().to_json()
    out["state_keys"] = sorted(json.loads(state_json)["extensions"])
    session.close()

    # 8. Resume against the workspace as it is now; drift fails closed (strict policy).
    resumed = restore(state_json, cache.resolve(project))
    resumed.runtime()
    out["resumed_ok"] = resumed.ok
    out["resumed_workflows"] = sorted(resumed.session.skill_workflows.active)
    out["resumed_delivered"] = sorted(resumed.session.rules.delivered_ids)
    return out


SCRIPT = [
    ("Bash", {"command": "rm -rf build"}),             # blocked by the user's hook
    ("Read", {"file_path": ".env"}),                   # denied by a project rule
    ("Bash", {"command": "git push origin main"}),     # ask: the user says no
    ("Write", {"file_path": "RELEASE.md", "content": "## 1.2\n"}),  # held back: the release rule comes first
    ("Write", {"file_path": "RELEASE.md", "content": "## 1.2\n"}),  # the model read it and retries
    ("Bash", {"command": "echo hello"}),               # allowed by a user rule
    ("Skill", {"skill": "release-notes"}),             # activate the skill
    ("Bash", {"command": "echo again"}),               # now outside the skill's allowed-tools
    ("Read", {"file_path": "RELEASE.md"}),             # inside them
]


#: one call for each guard that does not check it (after :func:`add_guards_that_do_not_decide`)
GUARD_SCRIPT = [
    ("Read", {"file_path": "AGENTS.md"}),                       # the project's Read guard awaits approval
    ("Bash", {"command": "echo audited"}),                      # the user's audit hook fails (and the
    ("Bash", {"command": "echo audited"}),                      # rules barrier holds the first shell call)
    ("Write", {"file_path": "notes.md", "content": "draft\n"}),  # the user's plugin guard is switched off
]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with tempfile.TemporaryDirectory() as tmp:
        home, project = make_demo_tree(Path(tmp))
        if argv[:1] == ["--guards"]:
            add_guards_that_do_not_decide(home, project)
            policy: Literal["report", "block"] = "block" if argv[1:2] == ["block"] else "report"
            out = run_session(home, project, GUARD_SCRIPT, ask_user=lambda decision: True, unapproved=policy)
        else:
            out = run_session(home, project, SCRIPT)
        for key, value in out.items():
            if key == "turns":
                for turn in value:
                    print("turn:", " | ".join(str(part).replace("\n", " ") for part in turn if part))
            else:
                print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
