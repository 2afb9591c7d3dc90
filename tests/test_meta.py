"""Project-level checks: every module imports cleanly, the README keeps its two
set-up commands and .ci/run runs exactly those."""

import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import wskit

REPO = Path(__file__).resolve().parents[1]


def all_modules() -> list[str]:
    import wskit.builtin_plugins as bp

    names = ["wskit"]
    for pkg in (wskit, bp):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            names.append(info.name)
    from tests.layers import extra_missing

    return sorted(n for n in names if not n.endswith("__main__") and not extra_missing(n))


def test_every_module_imports_without_warnings():
    mods = all_modules()
    assert "wskit.builtin_plugins.skills" in mods and "wskit.cli.inspect" in mods
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    subprocess.run([sys.executable, "-W", "error", "-c", code, *mods], check=True)


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", quick, re.S)]


def test_readme_has_exactly_two_setup_commands():
    cmds = readme_commands()
    assert len(cmds) == 2
    assert all("\n" not in c for c in cmds)
    assert "docs/examples/workspace" in cmds[0] and "pip install" in cmds[0]
    assert "'.[test,pydantic-ai,openai-agents,langchain]'" in cmds[1] and "./plugins/*" in cmds[1] and "pytest" in cmds[1]


def test_ci_runs_the_readme_commands():
    ci = (REPO / ".ci" / "run").read_text()
    first, second = readme_commands()
    assert first in ci
    assert second.split(" && ", 1)[1] in ci  # after creating the venv
    assert '"$rc" -eq 5' in ci  # "no tests collected" fails CI


def test_example_workspace_is_shipped():
    root = REPO / "docs" / "examples" / "workspace"
    assert sorted(p.parent.name for p in root.rglob("SKILL.md")) == ["hello-world", "release-notes"]


def test_builtin_plugins_package_maps_to_its_folder():
    import wskit.builtin_plugins as bp

    assert Path(bp.__file__).parent.name == "builtin_plugins"
    assert Path(importlib.import_module("wskit.models").__file__).parent.name in ("core", "wskit")


def test_readme_python_snippet_runs(tmp_path):
    text = (REPO / "README.md").read_text()
    code = re.search(r"From Python:\n\n```python\n(.*?)```", text, re.S).group(1)
    home, proj = tmp_path / "home", tmp_path / "project"
    (proj / ".claude/skills/pdf").mkdir(parents=True)
    (proj / ".claude/skills/pdf/SKILL.md").write_text("---\nname: pdf\ndescription: PDFs.\n---\nBody\n")
    home.mkdir()
    from wskit.trust import TrustStore

    TrustStore.for_home(home).grant(proj)
    code = code.replace('"/home/me"', repr(str(home))).replace('"/path/to/project"', repr(str(proj)))
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)
    assert scope["skill"].id == "project:pdf"
    assert '"project:pdf"' in scope["state_json"]
