"""Real inputs: every skill and command of ../shared/corpus loads, and
``wsctl skills validate --strict`` agrees with the reference validator ``skills-ref``."""

import json
from pathlib import Path

import pytest

from tests.markdown_helpers import SHARED
from wskit.builtin_plugins.commands.loader import load_commands
from wskit.builtin_plugins.skills import wskit_load_skills
from wskit.models import ResourceSource, Scope

CORPUS = SHARED / "corpus"
pytestmark = pytest.mark.corpus


def _need_corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is absent")
    return CORPUS.resolve()


def _plugin_roots(corpus: Path) -> list[Path]:
    out = []
    for group in ("plugins", "external_plugins"):
        base = corpus / "claude-plugins-official" / group
        if base.is_dir():
            out.extend(sorted(p for p in base.iterdir() if p.is_dir()))
    return out


def _sources(corpus: Path) -> list[ResourceSource]:
    skills_root = corpus / "anthropic-skills"
    srcs = [ResourceSource(scope=Scope.CLI, root=str(skills_root), base=str(skills_root), label="anthropic-skills")]
    for root in _plugin_roots(corpus):
        srcs.append(ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin=root.name))
    return srcs


def _skill_dirs(corpus: Path) -> list[Path]:
    dirs = sorted((corpus / "anthropic-skills" / "skills").glob("*/SKILL.md"))
    for root in _plugin_roots(corpus):
        dirs.extend(sorted((root / "skills").glob("*/SKILL.md")))
    return [d.parent for d in dirs]


def test_every_corpus_skill_and_command_loads():
    corpus = _need_corpus()
    expected_skills = {str(d) for d in _skill_dirs(corpus)}
    expected_cmds = set()
    for root in _plugin_roots(corpus):
        expected_cmds |= {str(p) for p in (root / "commands").rglob("*.md")} if (root / "commands").is_dir() else set()
    loaded_skills, loaded_cmds, errors = set(), set(), []
    for src in _sources(corpus):
        for result, bucket in ((wskit_load_skills(src), loaded_skills), (load_commands(src), loaded_cmds)):
            errors.extend(d for d in result.diagnostics if d.level == "error")
            for r in result.resources:
                bucket.add(r.directory if r.kind == "skill" else str(r.provenance.absolute_path))
                if src.plugin:
                    assert r.id.startswith(f"plugin:{src.plugin}:")
    assert len(expected_skills) >= 40 and len(expected_cmds) >= 25
    assert loaded_skills == expected_skills
    assert loaded_cmds == expected_cmds
    assert errors == []


def test_strict_validation_agrees_with_skills_ref(wsctl):
    corpus = _need_corpus()
    validator = pytest.importorskip("skills_ref.validator")
    dirs = _skill_dirs(corpus)
    disagreements = []
    valid_count = 0
    for d in dirs:
        reference_valid = not validator.validate(d)
        res = wsctl("skills", "validate", str(d), "--strict", "--json")
        ours = json.loads(res.output)
        assert res.exit_code == (0 if ours["valid"] else 1)
        valid_count += ours["valid"]
        if ours["valid"] != reference_valid:
            disagreements.append((str(d), reference_valid, ours["errors"]))
    assert disagreements == []
    assert 0 < valid_count < len(dirs)  # the corpus holds both kinds: the comparison means something


def test_every_corpus_agent_and_command_loads_without_hidden_or_length_findings():
    """The hidden-character warnings and description bounds of commands and
    agents (docs/security.md) leave every real command and agent loaded and unflagged."""
    from wskit.builtin_plugins.agents.loader import load_agents

    corpus = _need_corpus()
    expected, loaded, findings = set(), set(), []
    for root in _plugin_roots(corpus):
        if (root / "agents").is_dir():
            expected |= {str(p) for p in (root / "agents").rglob("*.md")}
        src = ResourceSource(scope=Scope.PLUGIN, root=str(root), base=str(root), plugin=root.name)
        for result in (load_agents(src), load_commands(src)):
            loaded |= {str(r.provenance.absolute_path) for r in result.resources if r.kind == "agent"}
            findings += [d for d in result.diagnostics
                         if d.code in ("hidden-characters", "agent-description-too-long", "command-description-too-long")]
    assert len(expected) >= 30
    assert loaded == expected
    assert findings == []
