"""Two plugins whose hooks have the same command text, against Claude Code: does it run
both (each with its own ``${CLAUDE_PLUGIN_ROOT}``), or one of them?

:func:`setup` writes a local directory marketplace ``mk`` (``extraKnownMarketplaces`` in the
user's settings) with plugins ``alpha`` and ``beta``, both enabled by the user. Each plugin's
``hooks/hooks.json`` has the same ``SessionStart`` and ``UserPromptSubmit`` hook, command
``sh "${CLAUDE_PLUGIN_ROOT}/hooks/m.sh"``; each plugin's ``m.sh`` writes its own marker. The
project is trusted. Claude Code runs ``claude -p hi`` in the project (an unreachable model:
the hooks of the start and of the prompt run before any request). The answer is the sorted
names whose marker exists, joined by ``+`` (``alpha+beta``: both ran), or ``none``.

``python -m tests.conformance.same_hook_text`` re-asks the installed Claude Code and rewrites
``same_hook_text_recorded.json``; ``test_same_hook_text.py`` compares wskit with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conformance import oracles
from tests.conformance.standin import record_claude

__all__ = ["COMMAND", "PLUGINS", "RECORDED", "ask_claude", "load", "main", "setup"]

RECORDED = Path(__file__).with_name("same_hook_text_recorded.json")
PLUGINS = ("alpha", "beta")
COMMAND = 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/m.sh"'


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def setup(base: Path) -> tuple[Path, Path, Path]:
    """``(home, project, market)`` under ``base``; plugin ``NAME``'s hook writes ``base/ran-NAME``."""
    home, project, market = base / "home", base / "p", base / "market"
    (home / ".claude").mkdir(parents=True)
    (project / ".claude").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _write(market / ".claude-plugin/marketplace.json",
           {"name": "mk", "owner": {"name": "t"},
            "plugins": [{"name": n, "source": f"./plugins/{n}"} for n in PLUGINS]})
    hook = [{"hooks": [{"type": "command", "command": COMMAND}]}]
    for name in PLUGINS:
        plugin = market / "plugins" / name
        _write(plugin / ".claude-plugin/plugin.json", {"name": name, "version": "1.0.0"})
        _write(plugin / "hooks/hooks.json", {"hooks": {"SessionStart": hook, "UserPromptSubmit": hook}})
        (plugin / "hooks/m.sh").write_text(f"cat >/dev/null; touch {base / ('ran-' + name)}\n")
    _write(home / ".claude/settings.json",
           {"extraKnownMarketplaces": {"mk": {"source": {"source": "directory", "path": str(market)}}},
            "enabledPlugins": {f"{n}@mk": True for n in PLUGINS}})
    return home, project, market


def answer(base: Path) -> str:
    """The sorted names of the plugins whose marker exists under ``base``, ``+``-joined, or ``none``."""
    ran = [n for n in PLUGINS if (base / f"ran-{n}").exists()]
    return "+".join(ran) or "none"


def ask_claude() -> str:
    """What Claude Code ran: ``alpha+beta``, one name, or ``none``."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="wskit-samehook-"))
    try:
        home, project, _ = setup(base)
        (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
        env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x",
                           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose"],
                     project, env, until=lambda out: '"subtype":"init"' in out, timeout=60)
        return answer(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def load() -> dict:
    """The recorded answer."""
    return json.loads(RECORDED.read_text())


def main() -> int:
    return record_claude(RECORDED, [("two-plugins-same-text", ask_claude)])


if __name__ == "__main__":
    sys.exit(main())
