"""Claude Code's verdict on marketplace names from a local folder (wskit issue 18).

For each name of :data:`NAMES` a folder with ``.claude-plugin/marketplace.json`` of
that name (one plugin) is given to ``claude plugin validate DIR`` and to ``claude
plugin marketplace add DIR`` (empty temporary home, offline); the exit status of
each and the error line are recorded in ``marketplace_names_recorded.json`` with
Claude Code's version. ``python -m tests.conformance.marketplace_names`` rewrites it.
"""

from __future__ import annotations

import datetime
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["NAMES", "RECORDED_FILE", "lay_out", "record"]

RECORDED_FILE = Path(__file__).with_name("marketplace_names_recorded.json")
NAMES = ("my-market", "claude-plugins-official", "Claude-Plugins-Official", "anthropic-marketplace",
         "claude-code-marketplace", "agent-skills", "claude-community", "healthcare", "anthropic-plugin-directory",
         "official-claude", "claude-marketplace-x", "anthropicplugins", "claudeplugins", "my-claude-official-stuff",
         "-claude-plugins", "cl\u0430ude-plugins-official", "claude-directories", "claude-tools", "anthropic-tools",
         "acme-claude-plugins", "inline", "builtin", "skills-dir")


def lay_out(base: Path, name: str) -> Path:
    """A marketplace folder called ``name`` with one local plugin ``p1``."""
    d = base / "m"
    (d / ".claude-plugin").mkdir(parents=True)
    (d / "plugins/p1/.claude-plugin").mkdir(parents=True)
    (d / "plugins/p1/.claude-plugin/plugin.json").write_text(json.dumps({"name": "p1", "description": "d",
                                                                          "version": "1.0.0"}))
    (d / "plugins/p1/commands").mkdir()
    (d / "plugins/p1/commands/hello.md").write_text("---\ndescription: hi\n---\nHi\n")
    (d / ".claude-plugin/marketplace.json").write_text(json.dumps(
        {"name": name, "description": "m", "owner": {"name": "x"},
         "plugins": [{"name": "p1", "source": "./plugins/p1", "description": "d"}]}))
    return d


def _error(out: str) -> str:
    for pat in (r"name: (.+)", r"Failed to add marketplace: (.+)"):
        m = re.search(pat, out)
        if m:
            return m.group(1).strip().split(" name: ")[-1]
    return ""


def record() -> int:
    from tests.conformance import oracles

    claude = oracles.binary("claude")
    if claude is None:
        print("Claude Code is not installed: recording kept", file=sys.stderr)
        return 1
    verdicts = {}
    for name in NAMES:
        base = Path(tempfile.mkdtemp(prefix="wskit-mkt-name-"))
        try:
            home, proj = base / "h", base / "p"
            home.mkdir()
            proj.mkdir()
            d = lay_out(base, name)
            env = oracles._env(home, ANTHROPIC_API_KEY="x", ANTHROPIC_BASE_URL="http://127.0.0.1:9",
                               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
            got = {}
            for what, cmd in (("validate", ["plugin", "validate", str(d)]),
                              ("add", ["plugin", "marketplace", "add", str(d)])):
                p = subprocess.run([str(claude), *cmd], cwd=proj, env=env, capture_output=True, text=True,
                                   timeout=60, stdin=subprocess.DEVNULL)
                out = p.stdout + p.stderr
                got[what] = {"ok": p.returncode == 0, "error": "" if p.returncode == 0 else _error(out)}
            verdicts[name] = got
            print(name, json.dumps(got), flush=True)
        finally:
            shutil.rmtree(base, ignore_errors=True)
    RECORDED_FILE.write_text(json.dumps({"host": "claude", "version": oracles.host_version("claude"),
                                         "recorded": datetime.date.today().isoformat(),
                                         "commands": ["claude plugin validate DIR", "claude plugin marketplace add DIR"],
                                         "verdicts": verdicts}, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(record())
