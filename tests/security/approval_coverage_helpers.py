"""A project and a plugin on disk for coverage tests, and the coverage of a command in them."""

from __future__ import annotations

import os
from pathlib import Path

from wskit.approval.coverage import Coverage, argv_coverage, command_coverage

__all__ = ["Layout", "make_layout"]


class Layout:
    """``project/`` (scripts/guard.sh sourcing scripts/lib.sh, hooks/check.py importing
    hooks/helper.py, tools/x.js requiring tools/lib.js) and ``plugin/`` (hooks/run.sh)."""

    def __init__(self, base: Path) -> None:
        self.project = base / "project"
        self.plugin = base / "plugin"
        files = {
            "project/scripts/guard.sh": "#!/bin/sh\n. ./lib.sh\nexit 2\n",
            "project/scripts/lib.sh": "x=1\n",
            "project/hooks/check.py": "import helper\n",
            "project/hooks/helper.py": "ok = True\n",
            "project/tools/x.js": "require('./lib')\n",
            "project/tools/lib.js": "module.exports = 1\n",
            "project/README.md": "hello\n",
            "plugin/hooks/run.sh": "#!/bin/sh\nexit 0\n",
        }
        for rel, text in files.items():
            p = base / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        os.chmod(self.project / "scripts/guard.sh", 0o755)
        self.env = {"CLAUDE_PROJECT_DIR": str(self.project), "CLAUDE_PLUGIN_ROOT": str(self.plugin),
                    "PATH": "/usr/bin:/bin"}

    def cov(self, command: str, cwd: Path | None = None) -> Coverage:
        return command_coverage(command, cwd=str(cwd or self.project), project_root=str(self.project),
                                plugin_root=str(self.plugin), env=self.env)

    def argv(self, argv: list[str]) -> Coverage:
        return argv_coverage(argv, cwd=str(self.project), project_root=str(self.project),
                             plugin_root=str(self.plugin), env=self.env)

    def rel(self, cov: Coverage) -> set[str]:
        """Covered paths relative to the base (``project/…``, ``plugin/…``)."""
        base = str(self.project.parent) + os.sep
        return {f.path.replace(base, "") for f in cov.files}


def make_layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path)
