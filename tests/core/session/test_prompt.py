"""Prompt assembly helpers: the Agent Skills catalog (same bytes as skills-ref), plain
form, rules, output style, provenance, byte and token budgets."""

from __future__ import annotations

from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.session import snapshot
from wskit.session.prompt import (
    Budget,
    contextual_rules,
    output_style,
    skills_catalog,
    static_rules,
    system_prompt,
)
from wskit.trust import TrustStore
from wskit.workspace import load_workspace


def skill(name, desc, extra=""):
    return f"---\nname: {name}\ndescription: {desc}\n{extra}---\nBody of {name}.\n"


@pytest.fixture
def session(make_tree, wskit_home, wskit_pm):
    ws = make_tree({
        ".git/HEAD": "ref: refs/heads/main\n",
        "AGENTS.md": "Keep answers short.\n",
        ".claude/rules/api.md": "---\npaths: [api/**]\n---\nAPI rules.\n",
        ".claude/skills/alpha/SKILL.md": skill("alpha", "Does <alpha> & more"),
        ".claude/skills/beta/SKILL.md": skill("beta", "Beta things"),
        ".claude/skills/hidden/SKILL.md": skill("hidden", "Only for users", "disable-model-invocation: true\n"),
        ".claude/output-styles/terse.md": "---\nname: Terse\ndescription: Short\n---\nAnswer in one line.\n",
    })
    TrustStore.for_home(wskit_home).grant(ws)
    wsr = load_workspace(WskitHooks(wskit_pm), Binding.discover(ws), HostProfile(name="wskit", home=wskit_home))
    return snapshot(wsr)


def test_available_skills_is_what_skills_ref_writes(session) -> None:
    skills_ref = pytest.importorskip("skills_ref")
    part = skills_catalog(session)
    dirs = [Path(session.get("skill", n).directory) for n in ("alpha", "beta")]
    assert part.text == skills_ref.to_prompt(dirs)
    assert [p["id"] for p in part.provenance] == ["project:alpha", "project:beta"]   # not the hidden one
    assert part.provenance[0]["path"].endswith("/skills/alpha/SKILL.md") and len(part.provenance[0]["sha256"]) == 64
    assert part.bytes == len(part.text.encode())


def test_plain_form_and_an_empty_catalog(session, tmp_path, wskit_pm, wskit_home) -> None:
    assert skills_catalog(session, form="plain").text == "- alpha: Does <alpha> & more\n- beta: Beta things"
    (tmp_path / "nothing").mkdir()
    empty = snapshot(load_workspace(WskitHooks(wskit_pm), Binding.discover(tmp_path / "nothing"),
                                    HostProfile(name="wskit", home=wskit_home)))
    assert skills_catalog(empty).text == "<available_skills>\n</available_skills>"  # as skills-ref
    with pytest.raises(ValueError, match="form must be"):
        skills_catalog(session, form="yaml")


def test_byte_and_token_budgets_keep_whole_items_and_report_the_rest(session) -> None:
    full = skills_catalog(session, form="plain")
    cut = skills_catalog(session, form="plain", budget=Budget(max_bytes=len("- alpha: Does <alpha> & more")))
    assert cut.text == "- alpha: Does <alpha> & more"
    assert cut.omitted == ({"kind": "skill", "id": "project:beta", "path": full.provenance[1]["path"],
                            "reason": "over-budget"},)
    words = lambda text: len(text.split())  # noqa: E731 -- the host's tokenizer
    by_tokens = skills_catalog(session, form="plain", budget=Budget(max_tokens=6, count_tokens=words))
    assert by_tokens.text == "- alpha: Does <alpha> & more" and by_tokens.tokens == 6
    with pytest.raises(ValueError, match="needs count_tokens"):
        Budget(max_tokens=5)


def test_rules_style_and_system_prompt(session) -> None:
    static = static_rules(session)
    assert static.text.startswith("<project-instructions>\n<instruction-file path=\"AGENTS.md\"")
    assert "Keep answers short." in static.text
    assert [(p["kind"], Path(p["path"]).name) for p in static.provenance] == [("rule", "AGENTS.md")]
    gate = session.check_invocation("Write", "write", [str(session.binding.source_root / "api" / "x.py")])
    ctx = contextual_rules(gate)
    assert "API rules." in ctx.text and ctx.text.startswith("<contextual-project-instructions")
    assert ctx.provenance[0]["path"].endswith(".claude/rules/api.md")
    assert static_rules(session, budget=Budget(max_bytes=10)).omitted[0]["reason"] == "over-budget"
    style = output_style(session, "project:terse")
    assert style.text == "Answer in one line." and style.provenance[0]["kind"] == "style"
    assert output_style(session, None).text == ""
    whole = system_prompt(session, style="project:terse", count_tokens=len)
    assert whole.text.split("\n\n")[0] == "Answer in one line."
    assert whole.text.endswith("</available_skills>") and whole.tokens == len(whole.text)
    assert [p["kind"] for p in whole.provenance] == ["style", "rule", "skill", "skill"]


def test_an_omitted_static_rule_is_not_delivered(session, wskit_pm, wskit_home) -> None:
    """A static rule the prompt budget left out is owed: the barrier offers it with the
    first write in its scope, a resumed session still owes it, and delivering it (or a
    later prompt that holds it) settles it. It used to count as delivered from the start."""
    root = session.binding.source_root
    agents = session.rules.static().files[0]
    cut = static_rules(session, budget=Budget(max_bytes=10))
    assert [o["id"] for o in cut.omitted] == [agents.id]
    assert agents.id not in session.rules.delivered_ids and session.rules.omitted_ids == {agents.id}
    state = session.state()
    assert state.extensions["rules"]["omitted"] == [agents.id]

    gate = session.check_invocation("Write", "write", [str(root / "src" / "main.py")])
    assert not gate.proceed and gate.rules.ids == (agents.id,)  # re-offered: AGENTS.md applies everywhere
    shell = session.check_invocation("Bash", "shell")
    assert agents.id in shell.rules.ids

    # a resumed session believes what was persisted: still owed
    again = snapshot(load_workspace(WskitHooks(wskit_pm), Binding.discover(root),
                                    HostProfile(name="wskit", home=wskit_home)))
    again.rules.resume(state.extensions["rules"])
    assert again.rules.omitted_ids == {agents.id}
    assert not again.check_invocation("Edit", "edit", [str(root / "README")]).proceed

    session.mark_delivered(gate.rules)  # the host delivered the barrier's answer
    assert session.check_invocation("Write", "write", [str(root / "src" / "main.py")]).proceed
    assert "omitted" not in session.state().extensions["rules"]
    # a later prompt with room delivers it for the resumed one
    assert static_rules(again).omitted == () and again.rules.omitted_ids == frozenset()
    assert again.check_invocation("Edit", "edit", [str(root / "README")]).proceed


def test_mark_omitted_refuses_a_rule_that_is_not_static(session) -> None:
    with pytest.raises(ValueError, match="not static rules"):
        session.rules.mark_omitted(["project:.claude/rules/api.md", "nope"])
