"""A deny rule is not passed by another spelling of its command, and the hooks' ``if``
sees the same commands (red-team finding F5 of newcomer4).

With the user's ``deny: ["Bash(rm:*)"]`` and a trusted project's ``allow: ["Bash(*)"]``
(mode ``bypassPermissions``), ``wsctl permissions check`` answered ``allow`` for compound
bodies, wrappers, ``bash -lc``, ``eval``, program paths, ``$'…'``, ``${IFS}`` and
``x=rm; $x``. One normaliser (``wskit.formats.shell.command_forms``) now serves the
permission rules and the hooks' ``if``: each spelling is denied, and where the program
cannot be known before it runs (``$y -rf /``, ``eval "$v"``) a deny rule fails closed
(``ask``, as Claude Code 2.1.337 answers there; tests/conformance/bash_deny_recorded.json).
Every check here is pure: nothing is run.
"""

from __future__ import annotations

import pytest

from wskit.builtin_plugins.hooks.conditions import IF_UNCERTAIN, if_allows
from wskit.builtin_plugins.permissions.policy import policy_from_layers
from wskit.formats.settings import SettingsLayer
from wskit.formats.shell import MAX_FORMS, command_forms

#: newcomer4 F5, each answered ``allow`` through the project's rule before
F5 = ["if true; then rm -rf /; fi", "for i in 1; do rm -rf /; done", "fn(){ rm -rf /; }; fn", "timeout 5 rm -rf /",
      "stdbuf -o0 rm -rf /", "setsid rm -rf /", "ionice rm -rf /", "sudo -u root rm -rf /",
      "builtin command rm -rf /", 'bash -lc "rm -rf /"', 'eval "rm -rf /"', "/bin/rm -rf /", "$'rm' -rf /",
      "rm${IFS}-rf /", "x=rm; $x -rf /"]
#: new spellings of the same kind
MORE = ["while :; do rm -rf /; done", "until false; do rm -rf /; done", "case a in a) rm -rf /;; esac",
        "f() { timeout 1 rm -rf /; }; f", "timeout -k 1 5 rm -rf /", "timeout --signal=KILL 5 rm -rf /",
        "nice -n 5 ionice -c 3 rm -rf /", "sudo -- rm -rf /", "sudo -u root -g root rm -rf /", "doas rm -rf /",
        "exec -a x rm -rf /", "command -p rm -rf /", "env -i A=1 rm -rf /", "env -S 'rm -rf /'",
        "/usr/bin/env rm -rf /", "chrt 0 rm -rf /", "taskset 1 rm -rf /", "flock /tmp/l rm -rf /",
        "flock /tmp/l -c 'rm -rf /'", "xargs rm -rf < list", "find / -exec rm -rf {} \\;",
        "zsh -c 'rm -rf /'", "bash --norc -o pipefail -c 'rm -rf /'", "/bin/sh -ec 'rm -rf /'", "su -c 'rm -rf /'",
        "sh -c \"sh -c 'rm -rf /'\"", "eval 'eval \"rm -rf /\"'", "trap 'rm -rf /' EXIT",
        "$'\\x72\\x6d' -rf /", "$'\\162m' -rf /", "$\"rm\" -rf /", "rm$IFS-rf /", "/usr/bin/../bin/rm -rf /",
        "echo \"$(rm -rf /)\"", "x=rm; y=1; $x -rf /", "v='rm -rf /'; eval \"$v\"", "s='rm -rf /'; sh -c \"$s\"",
        "r\\\nm -rf /", "rm \\\n  -rf /", ">/dev/null rm -rf /", "2>&1 rm -rf /", "A='x y' B=2 rm -rf /",
        "if true\nthen\n  rm -rf /\nfi",
        # verify4 E5
        "coproc rm -rf /", "script -qc 'rm -rf /' /dev/null", "script -c 'rm -rf /'", "busybox rm -rf /",
        "time coproc rm -rf /", "toybox rm -rf /", "systemd-run --user rm -rf /", "unshare -r rm -rf /",
        "nsenter -t 1 -m rm -rf /", "firejail rm -rf /", "sg root -c 'rm -rf /'", "sg root 'rm -rf /'"]
#: the program cannot be known before it runs: a deny rule fails closed
HIDDEN = ["$y -rf /", "${y} -rf /", "\"$y\" -rf /", 'eval "$v"', "$(echo rm) -rf /", "`echo rm` -rf /",
          'bash -c "$s"', "echo rm -rf / | sh", "cat script | bash -s", "/bin/r? -rf /", "{rm,-rf,/}",
          "IFS=x; rm${IFS}-rf /",
          # verify4 E5: a shell or ``.`` reading its commands from standard input
          '. /dev/stdin <<< "rm -rf /"', 'bash /dev/stdin <<< "rm -rf /"', 'source /dev/fd/0 < list',
          'sh /proc/self/fd/0 < list', 'bash <(echo "rm -rf /")', 'at now <<< "rm -rf /"']
#: not the denied command: the project's allow rule still allows them
CLEAN = ["echo hi", "ls -la && git status", "git commit -m 'rm -rf /'", "echo rm -rf /", "grep -r rm .",
         "timeout 5 ls", "bash -c 'ls'", "printf '%s' \"$HOME\"", "echo {a,b}", "ls ${HOME}"]


def _policy(tmp_path):
    user = SettingsLayer(scope="user", path=str(tmp_path / "h" / "settings.json"),
                         data={"permissions": {"deny": ["Bash(rm:*)"]}})
    project = SettingsLayer(scope="project", path=str(tmp_path / ".claude" / "settings.json"),
                            data={"permissions": {"allow": ["Bash(*)"], "defaultMode": "bypassPermissions"}})
    return policy_from_layers([user, project], project=str(tmp_path), home=str(tmp_path / "h"))


@pytest.mark.parametrize("command", F5 + MORE)
def test_a_spelling_of_the_denied_command_is_denied(tmp_path, command):
    got = _policy(tmp_path).check("Bash", {"command": command}, cwd=str(tmp_path))
    assert (got.decision, got.rule.text if got.rule else None) == ("deny", "Bash(rm:*)"), got.reason


@pytest.mark.parametrize("command", HIDDEN)
def test_a_hidden_program_fails_closed_under_a_deny_rule(tmp_path, command):
    got = _policy(tmp_path).check("Bash", {"command": command}, cwd=str(tmp_path))
    assert got.decision in ("ask", "deny"), got.reason
    if got.decision == "ask":
        assert "could match what runs there" in got.reason and "Bash(rm:*)" in got.reason


@pytest.mark.parametrize("command", CLEAN)
def test_other_commands_stay_allowed(tmp_path, command):
    assert _policy(tmp_path).check("Bash", {"command": command}, cwd=str(tmp_path)).decision == "allow"


def test_a_hidden_program_without_a_deny_rule_is_the_rules_business(tmp_path):
    """Fail closed is owed to a deny or ask rule; with none, the allow rule decides."""
    layer = SettingsLayer(scope="project", path=str(tmp_path / "s.json"),
                          data={"permissions": {"allow": ["Bash(*)"]}})
    policy = policy_from_layers([layer], project=str(tmp_path), home=str(tmp_path))
    assert policy.check("Bash", {"command": "$y -rf /"}, cwd=str(tmp_path)).decision == "allow"


def _if(command, rule="Bash(rm *)"):
    notes: list[str] = []
    got = if_allows("h1", rule, "PreToolUse", "Bash", {"tool_input": {"command": command}}, notes, "/p", "/h")
    return got, notes


@pytest.mark.parametrize("command", F5 + MORE)
def test_the_hooks_if_sees_the_same_commands(command):
    """A guard whose ``if`` is ``Bash(rm *)`` runs for every spelling the deny rule denies."""
    got, _ = _if(command)
    assert got is True


@pytest.mark.parametrize("command", HIDDEN)
def test_the_hooks_if_runs_a_guard_restrict_only_where_the_program_is_hidden(command):
    got, notes = _if(command)
    assert got in (True, IF_UNCERTAIN)
    if got == IF_UNCERTAIN:
        assert notes and "could match what runs at" in notes[0] and "not allow" in notes[0]


@pytest.mark.parametrize("command", CLEAN)
def test_the_hooks_if_skips_other_commands(command):
    assert _if(command) == (False, [])


@pytest.mark.parametrize("command", [
    " ".join(["nice -x -y -z"] * 40) + " rm x",  # unknown wrapper options are read both ways: 2^120 readings
    "$(" * 5000, "$(" * 500 + "rm x" + ")" * 500, "eval " * 2000 + "rm x", "x=rm; " * 2000 + "$x",
    "; ".join(f"a{i}" for i in range(3000)), "rm x; " + "a" * 20000,
])
def test_the_normaliser_is_bounded_and_fails_closed_past_its_bounds(tmp_path, command):
    """Past a bound (forms, readings, nesting, length) the command is unresolved: a deny
    rule answers ask or deny, never allow; nothing reads without end."""
    got = command_forms(command)
    assert len(got.commands) <= MAX_FORMS
    assert got.unresolved or any(f.startswith("rm x") for f in got.commands)
    assert _policy(tmp_path).check("Bash", {"command": command}, cwd=str(tmp_path)).decision in ("ask", "deny")
