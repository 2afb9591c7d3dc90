"""~/.gemini/trustedFolders.json as an additional trust source."""

from __future__ import annotations

import json

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.testing import write_tree
from wskit.trust import TrustStore
from wskit.workspace import decide_trust


def _decide(pm, path, home, enabled=True):
    profile = HostProfile(home=home, settings={"gemini_trusted_folders": True} if enabled else {})
    return decide_trust(WskitHooks(pm), Binding.discover(path), profile)


def _setup(tmp_path, rules):
    home = write_tree(tmp_path / "home", {".gemini/trustedFolders.json": json.dumps(rules)})
    work = write_tree(tmp_path / "work", {"a/b/.git/HEAD": "x", "a/c/.git/HEAD": "x", "a/d/.git/HEAD": "x"})
    return home, work


def test_semantics_longest_rule_wins(tmp_path, gemini_pm):
    work = tmp_path / "work"
    home, work = _setup(tmp_path, {str(work / "a"): "TRUST_FOLDER", str(work / "a/c"): "DO_NOT_TRUST",
                                   str(work / "a/d/file.txt"): "TRUST_PARENT"})
    b, _ = _decide(gemini_pm, work / "a/b", home)
    c, _ = _decide(gemini_pm, work / "a/c", home)
    d, _ = _decide(gemini_pm, work / "a/d", home)
    assert (b.state, b.source, b.decided_by) == ("trusted", "gemini", str(work / "a"))
    assert (c.state, c.decided_by) == ("untrusted", str(work / "a/c"))
    assert (d.state, d.decided_by) == ("trusted", str(work / "a/d"))


def test_off_unless_the_host_enables_it_and_wskit_store_wins(tmp_path, gemini_pm):
    work = tmp_path / "work"
    home, work = _setup(tmp_path, {str(work): "TRUST_FOLDER"})
    assert _decide(gemini_pm, work / "a/b", home, enabled=False)[0].state == "unknown"
    TrustStore.for_home(home).revoke(work / "a/b")
    dec, _ = _decide(gemini_pm, work / "a/b", home)
    assert (dec.state, dec.source) == ("untrusted", "store")


def test_invalid_value_fails_closed(tmp_path, gemini_pm):
    work = tmp_path / "work"
    home, work = _setup(tmp_path, {str(work): "TRUST_EVERYTHING"})
    dec, diags = _decide(gemini_pm, work / "a/b", home)
    assert dec.state == "unknown" and "TRUST_EVERYTHING" in dec.error
    assert [d.code for d in diags] == ["trust-store-error"]


def test_no_matching_rule_passes(tmp_path, gemini_pm):
    home, work = _setup(tmp_path, {"/somewhere/else": "TRUST_FOLDER"})
    dec, _ = _decide(gemini_pm, work / "a/b", home)
    assert (dec.state, dec.source) == ("unknown", "store")
