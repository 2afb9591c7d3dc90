"""The rule-file conventions table: what each profile switches on, and that the cache key
and the listing's kept names follow the table (they are derived, not kept by hand)."""

from __future__ import annotations

from wskit.builtin_plugins.rules.conventions import AGENTS_GROUP, Conventions
from wskit.builtin_plugins.rules.model import PRIORITY, RuleSettings
from wskit.host import HostProfile


def _conv(**kw) -> Conventions:
    settings = RuleSettings(**kw.pop("settings", {}))
    return Conventions.of(HostProfile(**kw), settings)


def test_default_profile_reads_the_cross_tool_files_in_priority_order() -> None:
    conv = _conv(name="blade")
    assert [f.name for f in conv.before] == ["CLAUDE.md"]
    assert [f.name for f in conv.after] == ["BLADE.md", ".cursorrules", "CLAUDE.local.md"]
    assert [(f.name, f.source, f.gitignore) for f in conv.after][2] == ("CLAUDE.local.md", "local", False)
    assert [(f.name, f.root_only) for f in conv.after][1] == (".cursorrules", True)  # Cursor's, the root's only
    assert [d.name for d in conv.config_dirs] == [".claude", ".blade", ".github", ".cursor"]
    assert conv.agents and {*AGENTS_GROUP} <= conv.names and "BLADE.md" in conv.names
    slots = [PRIORITY[f.slot] for f in (*conv.before, *conv.after)]
    assert slots == sorted(slots)  # the table lists each folder's files lowest priority first


def test_switching_a_convention_off_removes_its_files_and_changes_the_key() -> None:
    on, off = _conv(), _conv(claude_conventions=False)
    assert [f.name for f in off.before] == [] and [d.name for d in off.config_dirs] == [".wskit", ".github", ".cursor"]
    assert [f.name for f in off.user_files] == [".agents/AGENTS.md", ".copilot/copilot-instructions.md"]
    assert on.key != off.key and hash(on.key) != hash(off.key) or on.key != off.key
    assert not _conv(agents_conventions=False).agents


def test_fallback_names_are_kept_in_listings_and_keyed() -> None:
    plain, fb = _conv(), _conv(settings={"fallback_filenames": ("TEAM.md",)})
    assert "TEAM.md" in fb.names and "TEAM.md" not in plain.names
    assert fb.fallbacks == ("TEAM.md",) and fb.key != plain.key
