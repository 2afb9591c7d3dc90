"""A workspace shaped like the Gemini CLI repository, and a home with extensions installed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from wskit.host import HostProfile
from wskit.testing import write_tree

EXAMPLES = "packages/cli/src/commands/extensions/examples"

REPO = {
    ".git/HEAD": "ref: refs/heads/main\n",
    "GEMINI.md": "# Gemini CLI\n\nBuild with `npm run preflight`.\n\n@./docs/architecture.md\n",
    "docs/architecture.md": "Architecture: packages/cli is the UI, packages/core the backend.\n",
    "packages/core/GEMINI.md": "Core package: tools live in src/tools.\n",
    "packages/core/src/tools/GEMINI.md": "Every tool declares a schema.\n",
    "packages/core/src/tools/edit.ts": "export const edit = 1;\n",
    "packages/cli/GEMINI.md": "CLI package: React (Ink) components.\n",
    "packages/cli/src/ui/App.tsx": "export {}\n",
    "node_modules/leftpad/GEMINI.md": "never read\n",
    ".gemini/skills/docs-writer/SKILL.md":
        "---\nname: docs-writer\ndescription: Write and review documentation in docs/.\n---\nUse the style guide.\n",
    ".gemini/skills/pr-creator/SKILL.md":
        "---\nname: pr-creator\ndescription: Create pull requests following the template.\n---\nFill the template.\n",
    ".gemini/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews diffs.\n---\nReview carefully.\n",
    ".gemini/commands/review.toml": 'description = "Review the staged diff"\nprompt = """Review this: {{args}}"""\n',
    ".gemini/commands/git/commit.toml": 'prompt = "Write a commit message for:\\n!{git diff --staged}"\n',
    f"{EXAMPLES}/mcp-server/gemini-extension.json": json.dumps({
        "name": "mcp-server", "version": "1.0.0",
        "mcpServers": {"nodeServer": {"command": "node", "args": ["${extensionPath}${/}example.js"],
                                      "cwd": "${extensionPath}"}},
    }),
    f"{EXAMPLES}/mcp-server/example.js": "// server\n",
    f"{EXAMPLES}/custom-commands/gemini-extension.json": json.dumps({"name": "custom-commands", "version": "1.0.0"}),
    f"{EXAMPLES}/custom-commands/commands/fs/grep-code.toml":
        'prompt = """Please summarize the findings for the pattern `{{args}}`."""\n',
    f"{EXAMPLES}/context/gemini-extension.json": json.dumps({
        "name": "context", "version": "1.0.0", "contextFileName": "GEMINI.md", "excludeTools": ["run_shell_command"],
    }),
    f"{EXAMPLES}/context/GEMINI.md": "Context from the context extension.\n",
}


def install_examples(repo: Path, home: Path) -> None:
    """``gemini extensions install --path`` copies an extension into ``~/.gemini/extensions/<name>``."""
    for name in ("mcp-server", "custom-commands", "context"):
        shutil.copytree(repo / EXAMPLES / name, home / ".gemini" / "extensions" / name)


@pytest.fixture
def gemini_repo(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "gemini-cli", REPO)


@pytest.fixture
def gemini_home(tmp_path: Path, gemini_repo: Path) -> Path:
    home = tmp_path / "home"
    write_tree(home, {".gemini/GEMINI.md": "Global memory: be concise.\n"})
    install_examples(gemini_repo, home)
    return home


@pytest.fixture
def gemini_profile(gemini_home: Path) -> HostProfile:
    return HostProfile(name="wskit", home=gemini_home)


@pytest.fixture
def gemini_pm():
    """Built-ins plus wskit-gemini (no other entry points)."""
    import wskit_gemini
    from wskit.plugin.manager import make_plugin_manager

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register_checked(wskit_gemini, "gemini")
    return pm
