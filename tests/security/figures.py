"""Generate the figures of docs/security.md: run the adversarial suite and tabulate it.

Usage (from the repository root)::

    python tests/security/figures.py            # print both tables
    python tests/security/figures.py --write    # also replace them in docs/security.md

It runs pytest on the adversarial tests with a JUnit XML report (pytest's
own ``--junitxml``), then prints (1) per area: cases tried, passed, skipped,
failed, the slowest case and the area's hang guard, with the total wall time
and core count; (2) the table of hostile-file cases with their expected
codes and the loaders each runs against, built from
:mod:`tests.security.cases` and :mod:`tests.security.targets`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

#: test module -> (area shown in the table, hang guard / time bound per case)
AREAS = {
    "tests.security.test_hostile_files": ("hostile files x loaders", "30 s per load"),
    "tests.security.test_safefs_hostile": ("safe file access: deep trees, swap race", "60 s"),
    "tests.security.test_state_files": ("corrupt / tampered state files", "10-20 s"),
    "tests.security.test_binding_hostile": ("hostile .git file", "10-30 s"),
    "tests.security.test_parsers_hostile": ("parser blow-ups (ReDoS, YAML oddities)", "20-30 s (child process)"),
    "tests.security.test_wsctl_hostile": ("wsctl: terminal escapes; every command and option with hostile values",
                                          "60 s per real process"),
    "tests.security.test_terminal_escapes": ("wsctl: a folder named with escape sequences, through every command "
                                             "(one output guard)", "-"),
    "tests.security.test_bounded_reads": ("bounded reads: 2 GiB sparse files and FIFOs (real wsctl, 512 MiB)",
                                          "30-60 s per process"),
    "tests.security.test_digests": ("digests of whole files: skill bodies, styles round trip", "-"),
    "tests.security.test_loader_values": ("one bad value costs one file: huge numbers, deep TOML, deep trees (hypothesis)",
                                          "-"),
    "tests.security.test_properties": ("property-based (hypothesis): paths, names, parsers", "-"),
    "tests.security.test_properties_policy": ("property-based (hypothesis): selectors, rule budget", "-"),
    "tests.security.test_path_fields": ("hostile path fields: plugin.json, marketplace, MCP cwd, LSP folder", "10 s"),
    "tests.security.test_landed_state_files": ("hostile state/config files of issues 4-7", "10-60 s"),
    "tests.security.test_concurrency": ("cache concurrency (32 threads, 1,000 tasks)", "2 s run + 60 s join"),
    "tests.security.test_runtime_faults": ("runtime faults: hooks, HTTP hooks, MCP servers", "hook 1 s, MCP connect 1 s; guard 30-60 s"),
    "tests.security.test_hook_guards": ("hook guards: matchers, trust order, approval, HTTP hooks, untrusted settings",
                                        "20 s (child process) for patterns, 10 s per HTTP request"),
    "tests.security.test_mcp_guarantees": ("MCP servers: approval, ${VAR} never printed, approval store",
                                           "MCP connect 30 s"),
    "tests.security.test_project_plugin_servers": ("servers a project ships in its own plugin: MCP/LSP approval "
                                                   "follows where the definition lives", "MCP connect 30 s"),
    "tests.security.test_approval_loaders": ("approval coverage of loader routes, run for real (importlib, __path__, "
                                             "getattr of process modules, node_modules packages, redirection writes, "
                                             "the host's hook PATH, project venvs)", "60 s per interpreter run"),
    "tests.security.test_user_servers_project_files": ("the user's own MCP/LSP servers and an untrusted project's "
                                                         "files (untrusted-project; per-entry approval when trusted)",
                                                         "MCP connect 30 s"),
    "tests.security.test_approval_screens": ("approval screens show the whole entry: blank padding, tabs, line "
                                             "breaks, server args", "-"),
    "tests.security.test_coverage_outside": ("coverage: a binary in the project, a script in a folder others "
                                             "can write", "-"),
    "tests.security.test_guard_not_silent": ("a guard never switches off silently: a project's disableAllHooks, "
                                             "a guard that timed out, was not found or was killed", "hook 0.5 s"),
    "tests.security.test_plugin_guard_off": ("a guard never switches off silently: a project's enabledPlugins "
                                             "switching off the user's plugin", "-"),
    "tests.security.test_guard_displaced": ("a guard never switches off silently: a same-text hook of another "
                                            "plugin or folder, a padded tool input", "-"),
    "tests.security.test_approval_wrong_digest": ("approval given another entry's digest names its owner "
                                                  "(servers, hooks, another project)", "-"),
    "tests.security.test_lsp_hostile": ("LSP: paths a write tool names (outside, links)", "-"),
    "tests.security.test_crash_safety": ("crash safety (SIGKILL, 8 processes)", "10 s kill budget per store, 30-120 s per child"),
    "tests.security.test_worktree_trust": ("forged worktree pointers; one binding per execution root", "-"),
    "tests.security.test_git_hostile": ("hostile git configuration (fsmonitor, hooks, filters, submodule, GIT_DIR)",
                                        "git 120 s per call"),
    "tests.security.test_git_repo_config": ("a repository's own .git/config (promisor ext::, uploadpack, sshCommand, "
                                            "credential helper, includes…): no git in untrusted, nothing run in "
                                            "trusted", "git 120 s per call"),
    "tests.security.test_serve_hostile": ("wsctl serve: DNS rebinding on every loopback spelling, half-open and idle connections, SIGTERM", "-"),
    "tests.security.test_mcp_client_hostile": ("MCP client: non-JSON-RPC answers, invalid results, 64 MiB lines, "
                                               "signals", "-"),
    "tests.security.test_mcp_http_bounds": ("MCP client over HTTP: 32 MiB JSON bodies and SSE events, long streams, "
                                            "gzip (loopback and SDK servers)", "MCP connect 30 s"),
    "tests.security.test_state_writes": ("state writes: 8 concurrent enable/disable, links, modes, unknown keys",
                                         "120-180 s per process"),
    "tests.security.test_private_stores": ("private stores (hook trust, MCP approvals, OAuth tokens): links, modes, owner, bounds",
                                           "-"),
    "tests.security.test_barrier_kinds": ("rule barrier: unknown tool kinds", "-"),
    "tests.security.test_output_paths": ("output paths: links, devices, FIFOs, terminals, sockets", "20 s (FIFO)"),
    "tests.security.test_portable_fallbacks": ("portable fallbacks with /proc switched off", "-"),
    "tests.security.test_managed_settings_fail_closed": ("managed settings named but missing or unreadable: "
                                                         "every consumer fails closed", "-"),
    "tests.security.test_mcp_sdk_logging": ("MCP SDK log records: no traceback, no secret (real wsctl)",
                                            "120 s per process"),
    "tests.security.test_install_destinations": ("plugin install: names of Claude Code's own folders", "-"),
    "tests.security.test_install_bounds": ("plugin install bounds: files, bytes, sparse giants", "-"),
    "tests.security.test_bash_redirection": ("permission rules: an allow rule never allows a redirection to a file",
                                             "-"),
    "tests.security.test_bash_deny_spellings": ("permission deny rules and the hooks' if: one normaliser reads "
                                                "through compound bodies, wrappers, sh -c, eval, paths, $'…', "
                                                "${IFS}; a hidden program fails closed", "-"),
    "tests.security.test_approval_coverage": ("approval coverage: each shell spelling of a hook or server command "
                                              "followed to the files it runs, or named unverified", "-"),
    "tests.security.test_approval_loads": ("approval coverage: what a shell, Python or Node script loads from "
                                           "outside its folder, covered or named unverified (script:line)", "-"),
    "tests.security.test_approval_fail_closed": ("approval coverage fails closed: each command of a hook script "
                                                 "followed as a hook command is, or named unverified (script:line); "
                                                 "wrapper arguments, exec bit and #! of each followed file", "-"),
    "tests.security.test_approval_escapes": ("approval coverage escapes: planted bytecode (-E, env -i, #! -E), "
                                             "server env and HOME-like variables, node --env-file, PATH entries, "
                                             "awk -f/sed -f program files; PATH written at run time, /dev/fd scripts, files a hook "
                                             "writes then runs; require/sys.path used other than by a recognised call",
                                             "-"),
    "tests.security.test_per_entry_approval": ("per-entry approval of hooks, MCP and LSP servers: an added plugin, "
                                               "an edited entry, migration, not-decided outcomes, untrusted projects",
                                               "-"),
    "tests.security.test_hook_run_integrity": ("what an approved hook runs is what was approved: a script "
                                                "swapped while it ran (put back or not, a real concurrent writer), "
                                                "edited during a session, sync and async; a user's hook that runs "
                                                "project files (python -c importing the project's json.py)", "-"),
    "tests.security.test_server_bytecode": ("approved MCP and LSP servers: a .pyc planted in the project's "
                                            "__pycache__ (forged mtime and size) never runs", "-"),
    "tests.security.test_serve_header_timeout": ("serve --http header timeout: silent and half-sent heads closed; "
                                                 "a request a starved loop has not read, a stalled machine, an idle "
                                                 "keep-alive client kept", "-"),
    "tests.security.test_cursor_hooks": ("Cursor's .cursor/hooks.json: nothing read untrusted, entries run only once "
                                         "approved one by one", "-"),
    "tests.security.test_watch_guards": ("watching WorkspaceCache: a new hard link, a folder swapped for a link out, "
                                         "revoked trust, each refused at once", "-"),
    "tests.security.test_export_confined": ("wsctl export: links, a shipped manifest naming files outside or secrets, "
                                            "prune through links", "-"),
    "tests.security.test_frontmatter_lenient": ("lenient frontmatter retry: no alias, no tag, bounded", "-"),
    "tests.security.test_index_hostile": ("persistent index: corrupt, linked, oversized, forged, capped", "-"),
    "tests.security.test_marketplace_names": ("reserved marketplace names from a local folder", "-"),
    "tests.security.test_concurrency_run": ("concurrency run, smoke (8 wsctl processes, 4 s, SIGKILL)",
                                            "4 s run + 300 s join"),
    "tests.core.fs.test_jsonsafe": ("depth-bounded JSON", "-"),
    "tests.core.fs.test_walk": ("bounded tree walk", "20 s"),
    "tests.builtin_plugins.skills.test_tools_split": ("allowed-tools splitting (linear)", "20 s (child process)"),
    "tests.core.formats.test_argsubst": ("skill/command argument substitution and word splitting (linear)",
                                         "20 s (child process)"),
    "tests.security.test_approval_reach": ("approval coverage by what a script can reach, run for real (stdlib "
                                           "modules that run text, exec/getattr as values, Node getBuiltinModule and "
                                           "constructors; policy files a guard reads; loader variable families)",
                                           "60 s per interpreter run"),
}
PATHS = ["tests/security", "tests/core/fs/test_jsonsafe.py", "tests/core/fs/test_walk.py",
         "tests/builtin_plugins/skills/test_tools_split.py", "tests/core/formats/test_argsubst.py"]


def run_suite() -> tuple[list[dict], float]:
    """Run the adversarial tests; returns one dict per test case and the wall time in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", f"--junitxml={report}",
                        f"--basetemp={Path(tmp) / 'basetemp'}", *PATHS],
                       cwd=REPO, check=False, stdout=subprocess.DEVNULL)
        if not report.exists():
            raise SystemExit("pytest wrote no report")
        wall = time.monotonic() - start
        root = ET.parse(report).getroot()
    cases = []
    for tc in root.iter("testcase"):
        outcome = "passed"
        for tag in ("failure", "error", "skipped"):
            if tc.find(tag) is not None:
                outcome = {"failure": "failed", "error": "failed", "skipped": "skipped"}[tag]
        cases.append({"module": tc.get("classname", ""), "name": tc.get("name", ""),
                      "time": float(tc.get("time", 0)), "outcome": outcome})
    return cases, wall


def figures_table(cases: list[dict], wall: float) -> str:
    """Markdown table of the run."""
    by = defaultdict(list)
    for c in cases:
        by[c["module"]].append(c)
    missing = sorted(set(by) - set(AREAS))
    if missing:
        raise SystemExit(f"test modules without an area in AREAS: {missing}")
    lines = ["| area | cases tried | passed | skipped | failed | slowest case | time bound |",
             "|---|---:|---:|---:|---:|---:|---|"]
    tot = defaultdict(int)
    for module, (area, bound) in AREAS.items():
        cs = by.get(module, [])
        if not cs:
            continue
        n = {k: sum(1 for c in cs if c["outcome"] == k) for k in ("passed", "skipped", "failed")}
        for k, v in n.items():
            tot[k] += v
        tot["tried"] += len(cs)
        slow = max(c["time"] for c in cs)
        lines.append(f"| {area} | {len(cs)} | {n['passed']} | {n['skipped']} | {n['failed']} | {slow:.2f} s | {bound} |")
    lines.append(f"| **total** | **{tot['tried']}** | **{tot['passed']}** | **{tot['skipped']}** | "
                 f"**{tot['failed']}** | | whole run {wall:.0f} s on {os.cpu_count()} cores (limit 180 s) |")
    return "\n".join(lines)


def cases_table() -> str:
    """Markdown table of the hostile-file cases, their expected codes and loaders."""
    from tests.security.cases import CASES
    from tests.security.targets import TARGETS
    from tests.security.test_hostile_files import applies

    lines = ["| case | hostile input | expected diagnostic code(s) | loaders it runs against |", "|---|---|---|---|"]
    for c in CASES:
        targets = [t for t in TARGETS if applies(c, t)]
        codes = " / ".join(f"`{x}`" for x in sorted(c.codes)) if c.codes else "none required: bounded, no crash"
        overrides = [f"{t.name}: " + (" / ".join(f"`{x}`" for x in sorted(t.expect[c.name]))
                                      if t.expect[c.name] is not None else t.why.get(c.name, "none (known gap)"))
                     for t in targets if c.name in t.expect]
        overrides += [f"{t.name}: the whole source fails (by design)" for t in targets if c.name in t.whole_fail]
        if overrides:
            codes += " (" + "; ".join(overrides) + ")"
        what = c.what.replace("|", "\\|")
        lines.append(f"| `{c.name}` | {what} | {codes} | {', '.join(t.name for t in targets)} |")
    lines.append("")
    for t in TARGETS:
        if t.also_accept:
            lines.append(f"- {t.name} also answers any case with its catch-all "
                         + " / ".join(f"`{x}`" for x in sorted(t.also_accept)) + ".")
    lines.append("- Each row is `tests/security/test_hostile_files.py::test_hostile_file[<loader>-<case>]`.")
    return "\n".join(lines)


def _replace(doc: str, marker: str, body: str) -> str:
    pat = re.compile(rf"(<!-- {marker}:start -->\n)(?:.*?\n)?(<!-- {marker}:end -->)", re.S)
    if not pat.search(doc):
        raise SystemExit(f"marker {marker} not found in docs/security.md")
    return pat.sub(lambda m: m.group(1) + body + "\n" + m.group(2), doc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="replace the tables in docs/security.md")
    args = ap.parse_args()
    cases, wall = run_suite()
    fig = figures_table(cases, wall)
    tab = cases_table()
    print(fig, "\n", tab, sep="\n")
    if args.write:
        doc_path = REPO / "docs" / "security.md"
        doc = doc_path.read_text(encoding="utf-8")
        doc = _replace(doc, "figures", fig)
        doc = _replace(doc, "cases", tab)
        doc_path.write_text(doc, encoding="utf-8")
    return 1 if any(c["outcome"] == "failed" for c in cases) else 0


if __name__ == "__main__":
    raise SystemExit(main())
