"""``wsctl permissions list|check``: the deciding rule, its file and layer, exit codes."""

from __future__ import annotations

import json

from wskit.trust import TrustStore


def project(make_tree, home):
    ws = make_tree({".git/HEAD": "ref: refs/heads/main\n", ".claude/settings.json": json.dumps(
        {"permissions": {"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"], "ask": ["Bash(git push:*)"]}})})
    TrustStore.for_home(home).grant(ws)
    return ws


def test_check_names_the_rule_and_its_file_and_exits_by_decision(make_tree, wskit_home, wsctl) -> None:
    ws = project(make_tree, wskit_home)
    ok = wsctl("permissions", "check", "Bash", "npm run test --watch", str(ws))
    assert ok.exit_code == 0
    assert ok.output == f"allow: allow rule 'Bash(npm run test:*)' (project in {ws}/.claude/settings.json)\n"
    ask = wsctl("permissions", "check", "Bash", "git push origin", str(ws))
    assert ask.exit_code == 3 and ask.output.startswith("ask: ask rule 'Bash(git push:*)'")
    deny = wsctl("permissions", "check", "Read", str(ws / ".env"), str(ws), json=True)
    assert deny.exit_code == 4
    data = json.loads(deny.output)
    assert data["decision"] == "deny" and data["layer"] == "project" and data["input"] == {"file_path": str(ws / ".env")}
    assert data["rule"] == {"rule": "Read(./.env)", "behavior": "deny", "scope": "project",
                            "path": f"{ws}/.claude/settings.json"}
    by_mode = wsctl("permissions", "check", "Bash", "make", str(ws))
    assert by_mode.exit_code == 3 and by_mode.output == "ask: no rule matches Bash; mode 'default' asks\n"
    hooked = wsctl("permissions", "check", "--hook", "allow", "Bash", "git push", str(ws))
    assert hooked.exit_code == 3  # a hook's allow does not pass an ask rule


def test_check_input_as_json_and_a_bad_input(make_tree, wskit_home, wsctl) -> None:
    ws = project(make_tree, wskit_home)
    r = wsctl("permissions", "check", "Bash", '{"command": "npm run test"}', str(ws))
    assert r.exit_code == 0
    bad = wsctl("permissions", "check", "mcp__db__query", "select 1", str(ws))
    assert bad.exit_code == 2 and "takes its input as a JSON object" in bad.output
    # a shell group is a command, not broken JSON; a broken JSON object still is an error
    group = wsctl("permissions", "check", "Bash", "{ npm run test; }", str(ws), json=True)
    assert group.exit_code in (0, 3) and json.loads(group.output)["input"] == {"command": "{ npm run test; }"}
    broken = wsctl("permissions", "check", "Bash", '{"command": "npm run test"', str(ws))
    assert broken.exit_code == 2 and "not a JSON object" in broken.output


def test_list_shows_rules_deny_first_and_what_an_untrusted_project_cannot_do(make_tree, wskit_home, wsctl) -> None:
    ws = project(make_tree, wskit_home)
    out = wsctl("permissions", "list", str(ws)).output
    lines = [ln.split()[0] for ln in out.splitlines()[2:5]]
    assert lines == ["deny", "ask", "allow"]
    assert "default mode: default (nothing sets one)" in out
    TrustStore.for_home(wskit_home).revoke(ws)
    out = wsctl("permissions", "list", str(ws)).output
    assert out.startswith("no permission rules")
    assert "Read(./.env)" not in out  # an untrusted project's settings are not read at all
    assert "settings-untrusted" in out and ".claude/settings.json" in out


def test_managed_settings_are_shown_as_the_deciding_layer(make_tree, wskit_home, wsctl, tmp_path) -> None:
    ws = project(make_tree, wskit_home)
    managed = tmp_path / "managed-settings.json"
    managed.write_text(json.dumps({"permissions": {"deny": ["Bash(npm run:*)"], "defaultMode": "dontAsk"}}))
    r = wsctl("--managed-settings", str(managed), "permissions", "check", "Bash", "npm run test", str(ws))
    assert r.exit_code == 4 and r.output == f"deny: deny rule 'Bash(npm run:*)' (managed in {managed})\n"
    r = wsctl("permissions", "check", "Bash", "make", str(ws), env={"WSKIT_MANAGED_SETTINGS": str(managed)})
    assert r.exit_code == 4 and r.output == "deny: no rule matches Bash; mode 'dontAsk' denies [managed settings]\n"
