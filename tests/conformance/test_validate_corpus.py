"""``wsctl plugins validate`` gives every plugin of the published marketplace in
``../shared/corpus`` the verdict ``claude plugin validate`` gave (recorded in
``validate_recorded.json`` with Claude Code's version; skipped without the corpus)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RECORDED = json.loads(Path(__file__).with_name("validate_recorded.json").read_text())
CORPUS = Path(__file__).parents[2] / ".." / "shared" / "corpus" / RECORDED["corpus"]
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus") / RECORDED["corpus"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
def test_validate_verdicts_match_claude_plugin_validate(wsctl):
    verdicts = RECORDED["verdicts"]
    assert len(verdicts) > 40 and "invalid" in verdicts.values() and "valid" in verdicts.values()
    wrong = {}
    for rel, expected in sorted(verdicts.items()):
        res = wsctl("plugins", "validate", str(CORPUS / rel), json=True)
        got = "valid" if json.loads(res.output)["ok"] else "invalid"
        if got != expected:
            wrong[rel] = (expected, got)
    assert wrong == {}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is absent")
def test_other_corpus_folders_get_claude_plugin_validates_verdict(wsctl):
    """``anthropic-skills`` (a ``skills/<name>/SKILL.md`` tree without a manifest): Claude
    Code 2.1.337 validates it as a plugin that loads without a manifest."""
    others = RECORDED["other_folders"]
    assert others
    for rel, expected in sorted(others.items()):
        res = wsctl("plugins", "validate", str(CORPUS.parent / rel), json=True)
        assert ("valid" if json.loads(res.output)["ok"] else "invalid") == expected, rel
