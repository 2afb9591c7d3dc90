"""An allow rule never carries a command past its own name into writing a file.

``Bash(npm run test:*)`` allowed ``npm run test > /etc/passwd``: the rule named a command,
the redirection wrote a file the rule does not name. Claude Code 2.1.337 asks before any
output redirection to a file (tests/conformance/bash_recorded.json); wskit's allow rules
match no command that writes a file through a redirection, at the one matcher every
policy layer uses (``rules._command_matches``), while deny and ask rules still match it.
"""

from __future__ import annotations

import pytest

from wskit.builtin_plugins.permissions.policy import policy_from_layers
from wskit.builtin_plugins.permissions.rules import writes_file
from wskit.formats.settings import SettingsLayer


def _policy(tmp_path, allow=(), deny=()):
    layer = SettingsLayer(scope="user", path=str(tmp_path / "settings.json"),
                          data={"permissions": {"allow": list(allow), "deny": list(deny)}})
    return policy_from_layers([layer], project=str(tmp_path), home=str(tmp_path))


WRITES = ["npm run test > /etc/passwd", "npm run test >> ~/.bashrc", "npm run test 2> log", "npm run test &> out",
          "npm run test >| f", "npm run test >& f", "npm run test>f", "npm run test > 'a b'",
          "npm run test 1>f", "npm run test && npm run test > f", "npm run test | npm run test >f"]
CLEAN = ["npm run test", "npm run test 2>&1", "npm run test > /dev/null", "npm run test 2>/dev/null",
         "npm run test < in.txt", "npm run test 'a > b'", "npm run test \"x>y\"", "npm run test >&2"]


@pytest.mark.parametrize("command", WRITES)
def test_an_allow_rule_does_not_allow_a_redirection_to_a_file(tmp_path, command):
    assert writes_file(command) is not None
    got = _policy(tmp_path, allow=["Bash(npm run test:*)"]).check("Bash", {"command": command}, cwd=str(tmp_path))
    assert got.decision == "ask"
    # the reason names the file, as Claude Code's "Output redirection to 'f' needs approval"
    assert got.reason.startswith(f"output redirection to {writes_file(command)!r} needs approval")


@pytest.mark.parametrize("command", CLEAN)
def test_duplications_dev_null_and_quoted_text_stay_allowed(tmp_path, command):
    assert writes_file(command) is None
    got = _policy(tmp_path, allow=["Bash(npm run test:*)"]).check("Bash", {"command": command}, cwd=str(tmp_path))
    assert got.decision == "allow"


def test_deny_rules_still_match_a_redirected_command(tmp_path):
    got = _policy(tmp_path, allow=["Bash(npm run test:*)"], deny=["Bash(npm run test:*)"]).check(
        "Bash", {"command": "npm run test > f"}, cwd=str(tmp_path))
    assert got.decision == "deny"


@pytest.mark.parametrize("command", ["rm\tx", "(rm x)", "echo $(rm x)", "echo `rm x`", "\\rm x", '"rm" x',
                                     "rm\\\n x", 'bash -c "rm x"', "sh -c 'ls; rm x'", "FOO=1 env -i rm x",
                                     "ls && { rm x; }", "nohup rm x", "cat <(rm x)"])
def test_a_deny_rule_sees_equivalent_spellings_of_its_command(tmp_path, command):
    """A tab, a subshell, a substitution, a quoted or escaped first word, a line
    continuation, ``bash -c``, an assignment or a wrapper do not carry ``rm`` past
    ``Bash(rm:*)`` (a newcomer's finding: each was allowed under ``bypassPermissions``)."""
    layer = SettingsLayer(scope="user", path=str(tmp_path / "settings.json"),
                          data={"permissions": {"deny": ["Bash(rm:*)"], "defaultMode": "bypassPermissions"}})
    policy = policy_from_layers([layer], project=str(tmp_path), home=str(tmp_path))
    assert policy.check("Bash", {"command": command}, cwd=str(tmp_path)).decision == "deny"


def test_deny_forms_are_bounded():
    from wskit.builtin_plugins.permissions.rules import deny_forms

    assert len(deny_forms("$(" * 500 + "rm x" + ")" * 500)) <= 256
    assert len(deny_forms(" ; ".join(f"(x{i})" for i in range(2000)))) <= 256
