"""The conformance cases: small trees, each laid out in a temporary folder.

A case names its files by path: ``~/…`` lies in the home, anything else in the
project. An instruction file's content is its marker line ``S:<path>`` (the host's
answer is the list of markers it delivered, in order); a skill folder
``…/skills/<name>/`` gets a ``SKILL.md`` named ``<name>`` whose description carries
``SKILLNAME-<name>``. ``compare`` names the parts of the answers compared. ``links`` maps a path to the target a symbolic link there
names; ``git`` makes the project a git repository with one commit; ``repos`` are
nested folders that are git repositories of their own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["CASES", "COPILOT_CASES", "ISSUE_CASES", "Case", "marker"]


def marker(path: str) -> str:
    """The marker line of the file at ``path`` (as the case names it)."""
    return f"S:{path}"


@dataclass(frozen=True)
class Case:
    """One tree, the working folder a host starts in, and which hosts are asked."""

    id: str
    files: tuple[str, ...]
    cwd: str = ""
    skills: tuple[str, ...] = ()
    links: dict[str, str] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)
    git: bool = True
    repos: tuple[str, ...] = ()
    #: folders of the project made git submodules (``git submodule add`` of a repository
    #: holding their files; their ``.git`` is a file naming the superproject's module folder)
    submodules: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ("claude", "codex", "gemini", "opencode", "copilot")
    what: str = ""
    #: prompts typed at the host (``/name args``): the answer lists each with the text the
    #: host sends the model for it (Gemini CLI's TOML custom commands)
    commands: tuple[str, ...] = ()
    #: the parts of the answer compared (``descriptions``: name -> description of the
    #: ``sk-``/``cmd-`` skills and commands the host lists to the model)
    compare: tuple[str, ...] = ("instructions", "skills")

    def lay_out(self, base: Path) -> tuple[Path, Path, Path]:
        """Create the project ``base/p`` and home ``base/h``; returns (project, home, cwd)."""
        project, home = base / "p", base / "h"
        project.mkdir(parents=True)
        home.mkdir(parents=True)

        def where(path: str) -> Path:
            return home / path[2:] if path.startswith("~/") else project / path

        for path in self.files:
            p = where(path)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(self.text.get(path, marker(path) + "\n"))
        for path, content in self.text.items():
            if path not in self.files:
                p = where(path)
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(content)
        for folder in self.skills:
            name = folder.rstrip("/").rsplit("/", 1)[-1]
            p = where(folder) / "SKILL.md"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(f"---\nname: {name}\ndescription: SKILLNAME-{name} a test skill\n---\nBody of {name}.\n")
        for path, target in self.links.items():
            p = where(path)
            p.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target, p)
        if self.git:
            for repo in self.repos:
                _commit(project / repo)
            if self.submodules:
                _git(project, "init", "-q")
            for sub in self.submodules:
                src = base / ("module-" + sub.replace("/", "-"))
                shutil.move(project / sub, src)
                _commit(src)
                _git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(src), sub)
            _commit(project)
        cwd = project / self.cwd if self.cwd else project
        cwd.mkdir(parents=True, exist_ok=True)
        return project, home, cwd


def _git(folder: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", *args], cwd=folder, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def _commit(folder: Path) -> None:
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "--allow-empty", "-m", "tree")


_ALL_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")

CASES: tuple[Case, ...] = (
    Case("nested-chain", tuple(f"{d}{n}" for d in ("", "a/", "a/b/", "a/b/c/") for n in _ALL_NAMES), cwd="a/b",
         what="one file of each name in every folder from the root to the cwd and below it"),
    Case("ignored-cwd", ("CLAUDE.md", "AGENTS.md", "GEMINI.md", "ign/x/CLAUDE.md", "ign/x/AGENTS.md",
                         "ign/x/GEMINI.md"), cwd="ign/x", text={".gitignore": "ign/\n"},
         what="the cwd inside a git-ignored folder: the hosts still read its files"),
    Case("build-cwd", ("CLAUDE.md", "AGENTS.md", "GEMINI.md", "build/CLAUDE.md", "build/AGENTS.md",
                       "build/GEMINI.md"), cwd="build",
         what="the cwd in build/, a folder the project walk never enters"),
    Case("override", ("AGENTS.md", "a/AGENTS.override.md", "a/AGENTS.md"), cwd="a",
         what="AGENTS.override.md beside AGENTS.md"),
    Case("override-ignored", ("AGENTS.md", "a/AGENTS.override.md", "a/AGENTS.md", "CLAUDE.local.md"), cwd="a",
         text={".gitignore": "AGENTS.override.md\nCLAUDE.local.md\n"},
         what="a git-ignored AGENTS.override.md beside AGENTS.md"),
    Case("ignored-chain", ("AGENTS.md", "CLAUDE.md", "GEMINI.md", "a/AGENTS.md", "a/CLAUDE.md", "a/GEMINI.md"),
         cwd="a", text={".gitignore": "a/AGENTS.md\na/CLAUDE.md\na/GEMINI.md\n"},
         what="instruction files on the chain that .gitignore ignores"),
    Case("home-files", ("AGENTS.md", "~/.codex/AGENTS.md", "~/.codex/AGENTS.override.md", "~/.claude/CLAUDE.md",
                        "~/.gemini/GEMINI.md", "~/.config/opencode/AGENTS.md", "~/.agents/AGENTS.md",
                        "~/AGENTS.md", "~/.gemini/AGENTS.md"),
         what="every host's user-level instruction files"),
    Case("home-fallback", ("AGENTS.md", "~/.codex/AGENTS.md", "~/.claude/CLAUDE.md"),
         what="user files without the override (opencode falls back to ~/.claude/CLAUDE.md)"),
    Case("first-name-wins", ("CLAUDE.md", "a/AGENTS.md", "a/b/CLAUDE.md"), cwd="a/b",
         what="AGENTS.md in one folder, CLAUDE.md in others"),
    Case("claude-and-agents", ("CLAUDE.md", "AGENTS.md", "a/AGENTS.md"), cwd="a",
         what="a folder with both CLAUDE.md and AGENTS.md, one with AGENTS.md only"),
    Case("claude-family", ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md", ".claude/rules/style.md",
                           "a/.claude/CLAUDE.md"), cwd="a",
         what="CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md and an unconditional rule"),
    Case("link-inside", ("CLAUDE.md", "docs/GUIDE.md"), links={"AGENTS.md": "CLAUDE.md", "a/AGENTS.md": "../docs/GUIDE.md",
                                                             "GEMINI.md": "CLAUDE.md"}, cwd="a",
         what="AGENTS.md and GEMINI.md linked to files inside the project"),
    Case("link-outside", ("~/shared/AGENTS.md", "~/shared/CLAUDE.md", "~/shared/GEMINI.md"),
         links={"AGENTS.md": "../h/shared/AGENTS.md", "CLAUDE.md": "../h/shared/CLAUDE.md",
                "GEMINI.md": "../h/shared/GEMINI.md"},
         what="instruction files linked to files outside the project"),
    Case("no-git", ("AGENTS.md", "a/AGENTS.md", "CLAUDE.md", "a/CLAUDE.md", "GEMINI.md", "a/GEMINI.md"),
         cwd="a", git=False, what="no repository: no project root marker"),
    Case("submodule", ("AGENTS.md", "sub/AGENTS.md", "sub/x/AGENTS.md", "GEMINI.md", "sub/GEMINI.md"),
         cwd="sub/x", repos=("sub",), what="the cwd inside a nested repository"),
    Case("git-submodule", ("AGENTS.md", "CLAUDE.md", "GEMINI.md", "sub/AGENTS.md", "sub/CLAUDE.md", "sub/GEMINI.md",
                           "sub/x/AGENTS.md", "sub/x/CLAUDE.md", "sub/x/GEMINI.md"),
         cwd="sub/x", submodules=("sub",),
         what="the cwd inside a git submodule (its .git a file, not a folder)"),
    Case("fallback-names", ("AGENTS.md", "a/CLAUDE.md", "a/README.md", "a/b/CLAUDE.md", "a/b/c/README.md"),
         cwd="a/b/c", hosts=("codex",),
         text={"~/.codex/config.toml": 'project_doc_fallback_filenames = ["README.md", "CLAUDE.md"]\n'},
         what="Codex's project_doc_fallback_filenames in ~/.codex/config.toml: the first configured name a "
              "folder without AGENTS.md holds"),
    Case("skills-roots", ("AGENTS.md",), cwd="a",
         skills=(".agents/skills/sk-agents-root", "a/.agents/skills/sk-agents-a", ".claude/skills/sk-claude-root",
                 "a/.claude/skills/sk-claude-a", ".gemini/skills/sk-gemini-root", "a/.gemini/skills/sk-gemini-a",
                 ".opencode/skills/sk-opencode-root", "~/.agents/skills/sk-home-agents",
                 "~/.codex/skills/sk-home-codex", "~/.claude/skills/sk-home-claude", "~/.gemini/skills/sk-home-gemini",
                 "~/.config/opencode/skills/sk-home-opencode"),
         what="the skills roots of every host, project and home, from a subfolder"),
    Case("claude-subfolder", ("CLAUDE.md", "a/CLAUDE.md"), cwd="a", hosts=("claude",),
         compare=("instructions", "skills", "slash_commands"),
         skills=(".claude/skills/sk-sub-root", "a/.claude/skills/sk-sub-a", "a/b/.claude/skills/sk-sub-below"),
         text={".claude/commands/cmd-sub-root.md": "---\ndescription: root command\n---\nB\n",
               "a/.claude/commands/cmd-sub-a.md": "---\ndescription: a command\n---\nB\n",
               "a/b/.claude/commands/cmd-sub-below.md": "---\ndescription: below command\n---\nB\n"},
         what="a .claude/ folder in the subfolder that is the cwd: its skills and commands beside the root's, "
              "none from below the cwd"),
    Case("skills-nested", ("AGENTS.md",), skills=(".agents/skills/group/sk-grouped", ".claude/skills/group/sk-cgrouped",
                                                  ".agents/skills/sk-flat"),
         what="group/<slug>/SKILL.md below a skills root"),
    Case("skills-link-root", ("AGENTS.md",), skills=("skills/sk-via-root",),
         links={".claude/skills": "../skills", ".agents/skills": "../skills", ".gemini/skills": "../skills",
                ".opencode/skills": "../skills"},
         what="every host's project skills folder a link to ../skills inside the project"),
    Case("skills-link-folder", ("AGENTS.md",),
         skills=("shared/sk-lc", "shared/sk-la", "shared/sk-lg", "shared/sk-lo"),
         links={".claude/skills/sk-lc": "../../shared/sk-lc", ".agents/skills/sk-la": "../../shared/sk-la",
                ".gemini/skills/sk-lg": "../../shared/sk-lg", ".opencode/skills/sk-lo": "../../shared/sk-lo"},
         what="a skill folder linked to a folder inside the project"),
    Case("skills-link-outside", ("AGENTS.md",),
         skills=("~/elsewhere/sk-oc", "~/elsewhere/sk-oa", "~/elsewhere/sk-og", "~/elsewhere/sk-oo"),
         links={".claude/skills/sk-oc": "../../../h/elsewhere/sk-oc", ".agents/skills/sk-oa": "../../../h/elsewhere/sk-oa",
                ".gemini/skills/sk-og": "../../../h/elsewhere/sk-og",
                ".opencode/skills/sk-oo": "../../../h/elsewhere/sk-oo"},
         what="a skill folder linked to a folder outside the project"),
    Case("skills-chain-agents", ("AGENTS.md",), cwd="a/b",
         skills=(".agents/skills/sk-chain-root", "a/.agents/skills/sk-chain-a", "a/b/.agents/skills/sk-chain-b",
                 "a/b/c/.agents/skills/sk-chain-below", "a/.agents/skills/grp/sk-chain-grouped"),
         what=".agents/skills in every folder from the root to the cwd and below it, one grouped"),
    Case("budget", ("AGENTS.md", "a/AGENTS.md", "CLAUDE.md", "a/CLAUDE.md", "GEMINI.md", "a/GEMINI.md"), cwd="a",
         text={f"{d}{n}": f"S:{d}{n}\n" + "x" * 60 + "\n" + ("filler line of an instruction file\n" * 560)
               + f"S:{d}{n}#end\n" for d in ("", "a/") for n in _ALL_NAMES},
         what="two 20 KiB files of each name on the chain: over Codex's 32 KiB project_doc_max_bytes"),
    Case("imports", ("docs/code.md", "docs/a1.md", "~/elsewhere/out.md"),
         text={"CLAUDE.md": "S:CLAUDE.md\n@docs/c1.md\n",
               "GEMINI.md": "S:GEMINI.md\n@./docs/g1.md\nsee `@docs/code.md` here\n@../h/elsewhere/out.md\n",
               "AGENTS.md": "S:AGENTS.md\n@docs/a1.md\n",
               **{f"docs/c{i}.md": f"S:docs/c{i}.md\n@c{i + 1}.md\n" for i in range(1, 8)},
               "docs/c8.md": "S:docs/c8.md\n@../CLAUDE.md\n",
               **{f"docs/g{i}.md": f"S:docs/g{i}.md\n@g{i + 1}.md\n" for i in range(1, 8)},
               "docs/g8.md": "S:docs/g8.md\n@../GEMINI.md\n"},
         what="@path imports: chains eight deep ending in a cycle, one in a code span, one outside the project"),
    Case("gemini-file-names", ("~/.gemini/ZED.md", "~/.gemini/ALPHA.md", "~/.gemini/GEMINI.md", "ZED.md",
                               "ALPHA.md", "AGENTS.md", "GEMINI.md"),
         text={"~/.gemini/settings.json": '{"context": {"fileName": ["ZED.md", "ALPHA.md"]}}'}, hosts=("gemini",),
         what="context.fileName names two files: only they load, global ones in the configured order"),
    Case("gemini-toml-commands", (), hosts=("gemini",), compare=("instructions", "skills", "commands"), commands=(
        "/greet world", "/greet", "/twice x y", "/plain a b", "/git:commit msg", "/inject", "/folder", "/missing",
        "/outside", "/notes x"),
         text={".gemini/commands/greet.toml": 'description = "greet"\nprompt = "Hello {{args}} from greet"\n',
               ".gemini/commands/twice.toml": 'prompt = "A={{args}} B={{args}}"\n',
               ".gemini/commands/plain.toml": 'prompt = "PLAIN BODY"\n',
               ".gemini/commands/git/commit.toml": 'prompt = "GITCOMMIT {{args}}"\n',
               ".gemini/commands/inject.toml": 'prompt = "Look: @{docs/note.md} END"\n',
               ".gemini/commands/folder.toml": 'prompt = "D: @{docs} :E"\n',
               ".gemini/commands/missing.toml": 'prompt = "M: @{docs/none.md} :E"\n',
               ".gemini/commands/outside.toml": 'prompt = "O: @{../outside.txt} :E"\n',
               ".gemini/commands/notes.md": "# a Markdown file is not a TOML command\n",
               ".gitignore": "*.log\n",
               "docs/note.md": "NOTE-CONTENT\n", "docs/sub/x.md": "SUBX\n", "docs/sub/i.log": "LOGX\n",
               "../outside.txt": "SECRET\n"},
         what="TOML custom commands: {{args}} (twice, empty, absent: appended), namespaced folder, @{file}, "
              "@{folder} (its files, .gitignore applied), missing and outside files left as written, a .md "
              "not a command"),
    # frontmatter Claude Code reads leniently (wskit issue 18): compared on what the model is told
    Case("fm-unclosed-bracket", (), hosts=("claude",), compare=("descriptions",),
         text={".claude/skills/sk-bracket/SKILL.md": "---\nname: sk-bracket\ndescription: D-bracket [unclosed\n---\nB\n",
               ".claude/skills/sk-hint/SKILL.md": "---\nname: sk-hint\ndescription: D-hint\nargument-hint: [a\n---\nB\n",
               ".claude/skills/sk-star/SKILL.md": "---\nname: sk-star\ndescription: *D-star {x}\n---\nB\n",
               ".claude/commands/cmd-bracket.md": "---\ndescription: D-cmd [x\nargument-hint: [n] [m]\n---\nB\n"},
         what="frontmatter that is not valid YAML until values holding [, *, { are quoted"),
    Case("fm-tab-indent", (), hosts=("claude",), compare=("descriptions",),
         text={".claude/skills/sk-tab/SKILL.md": "---\nname: sk-tab\ndescription: D-tab\nmetadata:\n\towner: a\n---\nB\n",
               ".claude/skills/sk-tabkey/SKILL.md": "---\nname: sk-tabkey\n\tdescription: D-tabkey\n---\nBody of tabkey\n",
               ".claude/commands/cmd-tab.md": "---\ndescription: D-cmdtab\nx:\n\t- a\n---\nB\n"},
         what="a tab indent: read after the retry turns leading tabs into spaces, else no fields"),
    Case("fm-repeated-key", (), hosts=("claude",), compare=("descriptions",),
         text={".claude/skills/sk-dup/SKILL.md": "---\nname: sk-dup\ndescription: D-first\ndescription: D-last\n---\nB\n",
               ".claude/skills/sk-dupnested/SKILL.md":
                   "---\nname: sk-dupnested\ndescription: D-nested\nmetadata:\n  a: 1\n  a: 2\n---\nB\n",
               ".claude/commands/cmd-dup.md": "---\ndescription: D-cmdfirst\ndescription: D-cmdlast\n---\nB\n"},
         what="a repeated key: the last value is read"),
    Case("fm-no-frontmatter", (), hosts=("claude",), compare=("descriptions",),
         text={".claude/skills/sk-nofm/SKILL.md": "\n\nFirst line of nofm\nsecond\n",
               ".claude/skills/sk-long/SKILL.md": "L" + "x" * 150 + "\n",
               ".claude/commands/cmd-nofm.md": "First line of cmd-nofm\n"},
         what="no frontmatter: described by the first non-blank line, cut to 97 characters and '...' over 100"),
    Case("fm-no-description", (), hosts=("claude",), compare=("descriptions",),
         text={".claude/skills/sk-nodesc/SKILL.md": "---\nname: sk-nodesc\n---\n\n## Heading of nodesc\nmore\n",
               ".claude/skills/sk-empty/SKILL.md": "---\nname: sk-empty\n---\n",
               ".claude/skills/sk-emptydesc/SKILL.md": "---\nname: sk-emptydesc\ndescription:\n---\nBody of emptydesc\n",
               ".claude/skills/sk-listdesc/SKILL.md": "---\nname: sk-listdesc\ndescription: [D-a, b]\n---\nBody of listdesc\n",
               ".claude/skills/sk-numdesc/SKILL.md": "---\nname: sk-numdesc\ndescription: 42\n---\nB\n",
               ".claude/skills/sk-broken/SKILL.md": '---\nname: sk-broken\ndescription: "D-broken\n---\nBody of broken\n',
               ".claude/commands/cmd-nodesc.md": "---\nargument-hint: x\n---\n# Cmd heading\n",
               ".claude/commands/cmd-empty.md": "---\nargument-hint: x\n---\n"},
         what="no usable description (none, empty, a list, unparseable YAML): the first body line, heading marks "
              "dropped; 'Skill' or 'Custom command' for an empty body"),
    Case("fm-unclosed-block", (), hosts=("claude",), compare=("descriptions",),
         text={".claude/skills/sk-unclosed/SKILL.md": "---\nname: sk-unclosed\ndescription: D-unclosed\nBody\n",
               ".claude/commands/cmd-unclosed.md": "---\ndescription: D-cmdunclosed\n"},
         what="an opening '---' never closed: the whole file is the body"),
)

#: the parts of a GitHub Copilot CLI answer compared in its own cases
_COPILOT = ("instructions", "skills", "listed", "agents", "mcp")


def _fm(body: str, **keys: str) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in keys.items()) + "---\n" + body + "\n"


COPILOT_CASES: tuple[Case, ...] = (
    Case("copilot-sources", ("Agents.md", "a/CLAUDE.md", "a/b/GEMINI.md", "a/b/c/AGENTS.md", "CLAUDE.local.md",
                             ".claude/CLAUDE.md", "~/.claude/CLAUDE.md", "~/.codex/AGENTS.md",
                             ".github/copilot-instructions.md", "a/.github/copilot-instructions.md",
                             "~/.copilot/copilot-instructions.md"),
         cwd="a/b", hosts=("copilot",), compare=_COPILOT,
         skills=(".github/skills/sk-gh-root", "a/.github/skills/sk-gh-a", ".agents/skills/sk-ag-root",
                 ".claude/skills/sk-cl-root", "a/.claude/skills/sk-cl-a", "a/b/.agents/skills/sk-below",
                 "~/.copilot/skills/sk-home-copilot", "~/.agents/skills/sk-home-agents",
                 "~/.claude/skills/sk-home-claude", ".copilot/skills/sk-dotcopilot", ".agents/skills/grp/sk-grouped"),
         text={".github/instructions/all.instructions.md": _fm("S:all-instr", applyTo="'**'"),
               ".github/instructions/py.instructions.md": _fm("S:py-instr", applyTo="'**/*.py'"),
               ".github/instructions/sub/deep.instructions.md": _fm("S:deep-instr", applyTo="'**'"),
               ".github/instructions/noapply.instructions.md": "S:noapply-instr\n",
               ".github/instructions/excl.instructions.md": _fm("S:excl-cod", applyTo="'**'",
                                                                excludeAgent="coding-agent"),
               ".github/instructions/excl2.instructions.md": _fm("S:excl-rev", applyTo="'**'",
                                                                 excludeAgent="code-review"),
               ".claude/rules/r.md": "S:claude-rule-nopaths\n",
               ".claude/rules/rp.md": "---\npaths:\n  - 'src/**'\n---\nS:claude-rule-paths\n",
               "a/.github/instructions/a.instructions.md": _fm("S:a-instr", applyTo="'**'"),
               ".github/agents/ag1.agent.md": _fm("body", name="ag1", description="agent one"),
               ".github/agents/ag2.md": _fm("body", description="agent two"),
               ".claude/agents/ag3.md": _fm("body", name="ag3", description="agent three"),
               ".mcp.json": '{"mcpServers":{"root-mcp":{"command":"x"}}}',
               "a/.mcp.json": '{"mcpServers":{"a-mcp":{"command":"y"}}}',
               ".vscode/mcp.json": '{"servers":{"vscode-mcp":{"command":"z"}}}',
               ".github/mcp.json": '{"mcpServers":{"gh-mcp":{"command":"z"}}}',
               "~/.copilot/mcp-config.json": '{"mcpServers":{"home-mcp":{"command":"w"}}}'},
         what="every source GitHub Copilot CLI reads and several it does not: instruction files (a name in "
              "another case), .github/instructions and .claude/rules with applyTo / paths / excludeAgent, "
              "skills roots, custom agents, MCP files"),
    Case("copilot-order", (), cwd="a/b/c", hosts=("copilot",), compare=_COPILOT,
         text={**{f"{d}AGENTS.md": f"S:{d or './'}AGENTS\n" for d in ("", "a/", "a/b/", "a/b/c/")},
               **{f"{d}.github/copilot-instructions.md": f"S:{d or './'}gh\n" for d in ("", "a/", "a/b/", "a/b/c/")},
               "a/CLAUDE.md": "S:dup\n", "a/b/GEMINI.md": "S:dup\n",
               ".github/instructions/ss.instructions.md": _fm("S:ss", applyTo="'**/*'"),
               ".github/instructions/star.instructions.md": _fm("S:star", applyTo="'*'"),
               ".github/instructions/comma.instructions.md": _fm("S:comma", applyTo="'**/*.py,**/*.ts'"),
               ".github/instructions/list.instructions.md": _fm("S:list", applyTo="['**/*.md']"),
               "a/b/c/.github/instructions/c.instructions.md": "S:cwdrule\n"},
         what="the order of the root's, the cwd's and the folders' between files; identical files merged; "
              "applyTo that matches everything, a comma list and a YAML list"),
    Case("copilot-trees", (), cwd="a/b", hosts=("copilot",), compare=_COPILOT,
         text={**{f"{d}.github/instructions/z.instructions.md": f"S:{d or './'}ghi\n" for d in ("", "a/", "a/b/")},
               **{f"{d}.claude/rules/a.md": f"S:{d or './'}clr\n" for d in ("", "a/", "a/b/")},
               ".github/agents/ag-one.agent.md": _fm("b", description="one"),
               ".github/agents/x.md": _fm("b", name="Ag Two", description="two"),
               ".claude/agents/ag-three.md": _fm("b", description="three"),
               ".github/instructions/e.instructions.md": _fm("S:excl-list", description="excl",
                                                             excludeAgent='["coding-agent"]', applyTo="'**'")},
         what="rules trees of the root, a folder between and the cwd; agents named by file (x.agent.md) and "
              "with a space in their name; excludeAgent as a list"),
    Case("copilot-imports", ("docs/plain.md", "docs/c.md", "docs/g.md", "~/home.md"), hosts=("copilot",),
         compare=_COPILOT,
         text={"AGENTS.md": "S:AGENTS.md\n@docs/plain.md\n@../h/home.md\n",
               "CLAUDE.md": "S:CLAUDE.md\n@docs/c.md\n@docs/missing.md\n",
               "GEMINI.md": "S:GEMINI.md\n@docs/g.md\n"},
         what="@path imports in AGENTS.md and CLAUDE.md (expanded) and GEMINI.md (not), one leaving the project"),
    Case("copilot-exclude-agent", (), hosts=("copilot",), compare=_COPILOT,
         text={f".github/instructions/{n}.instructions.md": _fm(f"S:ex-{n}", applyTo="'**'", excludeAgent=v)
               for n, v in (("code-review", "code-review"), ("unknown", "some-other-agent"),
                            ("case", "Coding-Agent"), ("spaced", "' coding-agent '"),
                            ("comma", "'code-review, coding-agent'"), ("comma-other", "'code-review,unknown'"),
                            ("list-both", '["code-review", "coding-agent"]'), ("list-review", '["code-review"]'),
                            ("empty", "''"), ("empty-list", "[]"), ("number", "5"),
                            ("underscore", "coding_agent"), ("both-words", "'coding-agent code-review'"))},
         what="excludeAgent values other than coding-agent: code-review, unknown names, another case, "
              "blanks around it, comma lists and YAML lists holding it or not, empty, a number"),
)

CASES = CASES + COPILOT_CASES

#: the disagreements of issue 34 asked of Codex, Gemini CLI and opencode
ISSUE_CASES: tuple[Case, ...] = (
    Case("codex-blank-home-override", ("AGENTS.md", "~/.codex/AGENTS.md"), hosts=("codex",),
         text={"~/.codex/AGENTS.override.md": ""},
         what="a blank ~/.codex/AGENTS.override.md beside ~/.codex/AGENTS.md"),
    Case("codex-max-bytes", ("a/AGENTS.md",), cwd="a", hosts=("codex",),
         text={"AGENTS.md": "S:AGENTS.md\n" + "x" * 80 + "\nS:AGENTS.md#end\n",
               "~/.codex/config.toml": "project_doc_max_bytes = 60\n"},
         what="project_doc_max_bytes = 60 in ~/.codex/config.toml: the root file cut, the next dropped"),
    Case("gemini-home-import-outside", ("~/notes.md", "~/.gemini/inside.md", "GEMINI.md"), hosts=("gemini",),
         text={"~/.gemini/GEMINI.md": "S:~/.gemini/GEMINI.md\n@../notes.md\n@inside.md\n"},
         what="~/.gemini/GEMINI.md importing a file of the home outside ~/.gemini and one inside it"),
    Case("gemini-root-settings-subfolder", ("ZED.md", "a/ZED.md", "GEMINI.md", "a/GEMINI.md"), cwd="a",
         hosts=("gemini",), text={".gemini/settings.json": '{"context": {"fileName": ["ZED.md"]}}'},
         what="the git root's .gemini/settings.json (context.fileName) with the cwd in a subfolder"),
    Case("opencode-config-instructions", ("AGENTS.md", "docs/extra.md", "rules/a.md", "rules/b.md", "other.md"),
         hosts=("opencode",),
         text={"opencode.json": '{"instructions": ["docs/extra.md", "rules/*.md"]}'},
         what="opencode.json instructions: a path and a glob"),
)

CASES = CASES + ISSUE_CASES
