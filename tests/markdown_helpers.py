"""Helpers shared by the skills/commands/agents/styles tests (not a conftest, to keep merges clean)."""

from __future__ import annotations

from pathlib import Path

from wskit.binding import Binding
from wskit.host import HostProfile
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.trust import TrustStore
from wskit.workspace import load_workspace

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"


def skill_md(name: str, description: str = "A test skill.", extra: str = "", body: str = "Body.\n") -> str:
    """A SKILL.md text."""
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}"


def load(project: Path, home: Path, *, pm=None, trusted: bool = True, **profile_kw):
    """Load the workspace of ``project`` with the built-ins, ``home`` as the user home."""
    (project / ".git").mkdir(parents=True, exist_ok=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    profile = HostProfile(name=profile_kw.pop("host", "wskit"), home=home, **profile_kw)
    if trusted:
        TrustStore.for_home(home).grant(project)
    pm = pm or make_plugin_manager(load_entrypoints=False, env={})
    return load_workspace(WskitHooks(pm), Binding.discover(project), profile)
