"""A complete agent host on wskit, the one docs/integrating.md walks through.

Run it: ``python docs/examples/agent_host.py`` (it builds a throw-away home and project,
drives a scripted "model" through every step and prints the transcript). Copy it as the
skeleton of a real host: replace ``ScriptedModel`` with your model client, ``ask_user``
with your prompt, and ``run_tool`` with your tools.

Steps (each a section below): 1 resolve and snapshot; 2 build the system prompt;
3 check each tool call (hooks, permission rules, the rules barrier); 4 run it;
5 feed back contextual rules and diagnostics; 6 activate skills and commands;
7 persist the state; 8 resume.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from wskit import HostProfile, WorkspaceCache, snapshot
from wskit.builtin_plugins.prompt import Budget, contextual_rules, system_prompt
from wskit.session.resume import restore
from wskit.trust import TrustStore

__all__ = ["main", "make_demo_tree", "run_session"]

#: the rules barrier's tool kinds for the tools of this host
TOOL_KINDS = {"Read": "read", "Write": "write", "Edit": "edit", "Bash": "shell"}


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


def run_tool(tool: str, args: dict, root: Path) -> str:
    """The host's own tools (wskit never runs a tool)."""
    if tool == "Read":
        return (root / args["file_path"]).read_text()
    if tool == "Write":
        (root / args["file_path"]).write_text(args["content"])
        return f"wrote {args['file_path']}"
    if tool == "Bash":
        done = subprocess.run(["/bin/sh", "-c", args["command"]], cwd=root, capture_output=True, text=True,
                              timeout=30)
        return done.stdout.strip()
    raise ValueError(f"unknown tool {tool}")


def run_session(home: Path, project: Path, calls: list[tuple[str, dict]], *, ask_user=lambda decision: False,
                unapproved: str = "report", warn=print) -> dict:
    """Drive one session through ``calls`` (the scripted model's tool calls) and resume it.

    :param unapproved: what a guard that did not run (awaiting approval) means: ``report``
        (the host tells the user, the call goes on to the permission rules) or ``block``.
    :param warn: how the host tells the user (printed here).
    :returns: the transcript and what the host saw at each step (the test reads it).
    """
    out: dict = {"turns": [], "guards_not_run": []}
    # 1. Resolve and snapshot. The cache holds one loaded workspace per project; a
    #    session is an immutable snapshot of it (later edits do not change it).
    cache = WorkspaceCache(HostProfile(name="wskit", home=home))
    workspace = cache.resolve(project)
    session = snapshot(workspace)
    out["diagnostics"] = [f"{d.level} {d.code}: {d.message}" for d in workspace.diagnostics if d.level != "info"]

    # 2. The system prompt: output style, static rules (AGENTS.md…), skills catalog.
    prompt = system_prompt(session, style="project:terse", skills_budget=Budget(max_bytes=8192))
    out["system_prompt"] = prompt.text
    out["prompt_provenance"] = [p["kind"] for p in prompt.provenance]

    # 6a. A user typed "/ship 1.2" before the first turn: expand the command.
    command = session.get("command", "ship")
    out["command"] = session.plugin_hooks.expand_command(command, ["1.2"], str(session.binding.execution_root)).text

    workflows = session.component("skill_workflows")
    for turn, (tool, args) in enumerate(calls, 1):
        payload = {"tool_name": tool, "tool_input": args, "tool_use_id": f"call-{turn}"}
        # 3. Check the call: hooks first (they may block or rewrite the input), then the
        #    permission rules combined with the hooks' decision, then the active skill
        #    workflows' allowed-tools, then the rules barrier.
        if tool == "Skill":
            # 6b. Skills: the body comes from the skill runtime; allowed-tools narrow the tools.
            content = workflows.activate(args["skill"])
            out["turns"].append((tool, content.content.strip()))
            continue
        pre = session.hook_runner.run("PreToolUse", payload, unapproved=unapproved)
        for skipped in pre.undecided:
            # a guard that did not run is never "allowed": say which one and why (it awaits
            # approval: `wsctl hooks status` shows it), every time it matters
            warn(f"guard not run for {tool}: {skipped.message}")
            out["guards_not_run"].append((turn, skipped.hook_id, skipped.state))
        args = pre.updated_input or args
        decision = session.check_permission(tool, args, hook=pre)
        if decision.decision == "ask" and ask_user(decision):
            decision = None  # the user said yes for this call
        if decision is not None and decision.decision != "allow":
            why = pre.reason if decision.by == "hook" and pre.reason else decision.reason
            out["turns"].append((tool, f"{decision.decision}: {why}"))
            continue
        allowed = workflows.check(tool)
        if not allowed.allowed:
            out["turns"].append((tool, f"denied by skill workflow: {allowed.reason}"))
            continue
        paths = [str(project / args["file_path"])] if "file_path" in args else []
        gate = session.check_invocation(tool, TOOL_KINDS.get(tool, "read"), paths)
        feedback = ""
        if not gate.proceed:
            # 5. The rules that apply to this write go to the model first; it retries.
            feedback = contextual_rules(gate).text
            session.mark_delivered(gate.rules)
            gate = session.check_invocation(tool, TOOL_KINDS.get(tool, "read"), paths)
        # 4. Run it, then PostToolUse (its additional context goes back to the model too).
        result = run_tool(tool, args, project)
        post = session.hook_runner.run("PostToolUse", {**payload, "tool_response": result})
        out["turns"].append((tool, result, feedback, post.context))
        session.runtime.monitor.record_tool_call(tool, args, result, turn=turn)

    # 7. Persist: one call, references and digests only (no bodies).
    state_json = session.state().to_json()
    out["state_keys"] = sorted(json.loads(state_json)["extensions"])
    session.close()

    # 8. Resume against the workspace as it is now; drift fails closed (strict policy).
    resumed = restore(state_json, cache.resolve(project))
    resumed.runtime()
    out["resumed_ok"] = resumed.ok
    out["resumed_workflows"] = sorted(resumed.session.component("skill_workflows").active)
    out["resumed_delivered"] = sorted(resumed.session.rules.delivered_ids)
    return out


SCRIPT = [
    ("Bash", {"command": "rm -rf build"}),             # blocked by the user's hook
    ("Read", {"file_path": ".env"}),                   # denied by a project rule
    ("Bash", {"command": "git push origin main"}),     # ask: the user says no
    ("Write", {"file_path": "RELEASE.md", "content": "## 1.2\n"}),  # the release rule is delivered first
    ("Bash", {"command": "echo hello"}),               # allowed by a user rule
    ("Skill", {"skill": "release-notes"}),             # activate the skill
    ("Bash", {"command": "echo again"}),               # now outside the skill's allowed-tools
    ("Read", {"file_path": "RELEASE.md"}),             # inside them
]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = make_demo_tree(Path(tmp))
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
