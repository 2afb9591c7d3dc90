"""``wsctl serve --mcp`` as a real process, asked by the official MCP client (stdio and
streamable HTTP): skills listed and loaded, rules for a deep path, commands as prompts,
plugin bundles under their namespaced names, an untrusted project serving nothing of
its own, a file edit seen by a new connection and notified to an open one, limits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

anyio = pytest.importorskip("anyio")
pytest.importorskip("mcp")
pytest.importorskip("wskit_serve")

# A live server per test (~25 s in all): the slow step runs it; the default run keeps test_serve_bounds,
# test_serve_claude and tests/security/test_serve_hostile.py.
pytestmark = pytest.mark.slow

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

SKILL = "---\nname: {name}\ndescription: {desc}\nallowed-tools: [Read]\n---\n{body}\n"


def _tree(tmp_path: Path, trusted: bool = True) -> tuple[Path, Path]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    home.mkdir()
    (proj / "AGENTS.md").write_text("Root rule: be brief.\n")
    deep = proj / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    (proj / "src" / "AGENTS.md").write_text("src rule: type hints everywhere.\n")
    (proj / "src" / "pkg" / "AGENTS.md").write_text("pkg rule: no globals.\n")
    rules = proj / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "py.md").write_text("---\npaths: ['**/*.py']\n---\nPython rule: ruff clean.\n")
    for name, desc in (("release-notes", "Write release notes"), ("triage", "Triage an issue")):
        d = proj / ".claude" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(SKILL.format(name=name, desc=desc, body=f"Steps of {name}: $ARGUMENTS"))
    (proj / ".claude" / "skills" / "triage" / "checklist.md").write_text("1. reproduce\n")
    cmds = proj / ".claude" / "commands"
    cmds.mkdir(parents=True)
    (cmds / "review.md").write_text("---\ndescription: Review a file\nargument-hint: FILE\n---\n"
                                    "Review $ARGUMENTS. Context: @notes.txt !`touch SHELL_RAN`\n")
    (cmds / "fix.md").write_text("---\ndescription: Fix an issue\narguments: [issue, branch]\n---\n"
                                 "Fix $issue on $branch.\n")
    (proj / "notes.txt").write_text("the notes\n")
    if trusted:
        subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "trust", "grant", str(proj)],
                       check=True, capture_output=True)
    return home, proj


def _bundle(tmp_path: Path) -> Path:
    root = tmp_path / "bundle"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "kit", "version": "1.0.0"}))
    (root / "skills" / "deploy").mkdir(parents=True)
    (root / "skills" / "deploy" / "SKILL.md").write_text(SKILL.format(name="deploy", desc="Deploy it", body="Ship."))
    (root / "commands").mkdir()
    (root / "commands" / "ship.md").write_text("---\ndescription: Ship it\n---\nShip $ARGUMENTS now.\n")
    return root


#: the contextual rules of src/pkg/sub/mod.py, definition order (beyond the static AGENTS.md)
DEEP_RULES = [".claude/rules/py.md", "src/AGENTS.md", "src/pkg/AGENTS.md"]


def _wsctl_rules_for(home: Path, proj: Path, rel: str) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "--json", "rules", "--for",
                          str(proj / rel), str(proj)], check=True, capture_output=True, text=True, cwd=proj)
    return json.loads(out.stdout)["contextual"]


def _params(home: Path, proj: Path, *extra: str, serve: tuple[str, ...] = ()) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "wskit", "--home", str(home), *extra, "serve", str(proj), "--mcp",
                                       "--poll", "0.2", *serve],
                                 cwd=str(proj))


def _json(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def _run(fn):
    return anyio.run(fn)


def test_skills_rules_commands_over_stdio(tmp_path):
    home, proj = _tree(tmp_path)
    bundle = _bundle(tmp_path)

    async def main():
        async with stdio_client(_params(home, proj, "--plugin-dir", str(bundle))) as (r, w):
            async with ClientSession(r, w) as s:
                init = await s.initialize()
                assert "Root rule: be brief." in init.instructions          # static rules
                assert "<name>release-notes</name>" in init.instructions    # skills catalog
                assert {t.name for t in (await s.list_tools()).tools} == {
                    "skills_list", "skill_load", "rules_for", "rules_explain", "static_rules"}

                listed = _json(await s.call_tool("skills_list", {}))
                names = {x["name"]: x for x in listed["skills"]}
                assert set(names) == {"release-notes", "triage", "kit:deploy"} and listed["total"] == 3
                assert names["kit:deploy"]["plugin"] == "kit"
                assert names["triage"]["id"] == "project:triage"
                page = _json(await s.call_tool("skills_list", {"limit": 1, "offset": 1}))
                assert [x["name"] for x in page["skills"]] == ["release-notes"] and page["next_offset"] == 2

                body = _json(await s.call_tool("skill_load", {"name": "triage", "arguments": "bug 7"}))
                assert body["content"].strip() == "Steps of triage: bug 7"
                assert body["allowed_tools"] == ["Read"] and body["files"] == ["checklist.md"]
                extra = _json(await s.call_tool("skill_load", {"name": "triage", "file": "checklist.md"}))
                assert extra["content"] == "1. reproduce\n"
                assert _json(await s.call_tool("skill_load", {"name": "kit:deploy"}))["content"].strip() == "Ship."
                bad = await s.call_tool("skill_load", {"name": "triage", "file": "../release-notes/SKILL.md"})
                assert bad.is_error and "SKILL_CONTENT_REJECTED" in bad.content[0].text
                unknown = await s.call_tool("skill_load", {"name": "triag"})
                assert unknown.is_error and "did you mean triage" in unknown.content[0].text

                deep = _json(await s.call_tool("rules_for", {"path": "src/pkg/sub/mod.py"}))
                assert [f["path"] for f in deep["files"]] == DEEP_RULES
                assert deep["files"] == _wsctl_rules_for(home, proj, "src/pkg/sub/mod.py")  # wsctl's answer
                assert "pkg rule: no globals." in deep["text"] and 'path="src/pkg/AGENTS.md"' in deep["text"]
                why = _json(await s.call_tool("rules_explain", {"path": "src/pkg/sub/mod.py"}))
                assert {c["path"] for c in why["candidates"] if c["applies"]} >= {"AGENTS.md", "src/AGENTS.md"}
                outside = await s.call_tool("rules_for", {"path": "../../etc/passwd"})
                assert outside.is_error and "outside the workspace" in outside.content[0].text

                prompts = {p.name: p for p in (await s.list_prompts()).prompts}
                assert set(prompts) == {"review", "fix", "kit:ship"}
                assert [a.name for a in prompts["fix"].arguments] == ["issue", "branch"]
                review = await s.get_prompt("review", {"arguments": "main.py"})
                assert review.description == "Review a file (1 shell embed(s) left as written: wsctl serve never runs commands)"
                text = review.messages[0].content.text
                assert text.startswith("Review main.py. Context: ") and "the notes" in text
                assert "!`touch SHELL_RAN`" in text                                   # never run
                fix = (await s.get_prompt("fix", {"issue": "#7", "branch": "dev"})).messages[0].content.text
                assert fix.strip() == "Fix #7 on dev."
                ship = (await s.get_prompt("kit:ship", {"arguments": "v2"})).messages[0].content.text
                assert ship.strip() == "Ship v2 now."

                uris = {str(x.uri) for x in (await s.list_resources()).resources}
                assert {"rules://static", "skill://project%3Atriage"} <= uris
                res = await s.read_resource("skill://project%3Atriage")
                assert res.contents[0].text.strip() == "Steps of triage:"
                templates = (await s.list_resource_templates()).resource_templates
                assert [t.uri_template for t in templates] == ["skill://{id}/{file}"]
                part = await s.read_resource("skill://project%3Atriage/checklist.md")
                assert part.contents[0].text == "1. reproduce\n"

    _run(main)
    assert not (proj / "SHELL_RAN").exists()


def test_untrusted_project_serves_nothing_of_its_own(tmp_path):
    home, proj = _tree(tmp_path, trusted=False)

    async def main():
        async with stdio_client(_params(home, proj)) as (r, w):
            async with ClientSession(r, w) as s:
                init = await s.initialize()
                assert "not trusted" in init.instructions and "wsctl trust grant" in init.instructions
                assert "Root rule" not in init.instructions
                assert _json(await s.call_tool("skills_list", {}))["skills"] == []
                assert _json(await s.call_tool("rules_for", {"path": "src/pkg/sub/mod.py"}))["files"] == []
                assert (await s.list_prompts()).prompts == []

    _run(main)


@pytest.mark.parametrize("watch", ["--watch", "--no-watch"])  # file notifications, or the stat check
def test_edit_is_notified_to_an_open_connection_and_seen_by_a_new_one(tmp_path, watch):
    home, proj = _tree(tmp_path)
    seen: list[str] = []

    async def on_message(msg):
        seen.append(type(msg).__name__)

    async def main():
        async with stdio_client(_params(home, proj, serve=(watch,))) as (r, w):
            async with ClientSession(r, w, message_handler=on_message) as s:
                await s.initialize()
                assert {p.name for p in (await s.list_prompts()).prompts} == {"review", "fix"}
                (proj / ".claude" / "commands" / "deploy.md").write_text("---\ndescription: d\n---\nGo.\n")
                # the three notifications are sent one after another: wait for all of them
                wanted = {"PromptListChangedNotification", "ToolListChangedNotification",
                          "ResourceListChangedNotification"}
                with anyio.fail_after(20):
                    while not wanted <= set(seen):
                        await anyio.sleep(0.05)
                assert {p.name for p in (await s.list_prompts()).prompts} == {"review", "fix", "deploy"}
        async with stdio_client(_params(home, proj)) as (r, w):   # a new connection: the current set
            async with ClientSession(r, w) as s:
                await s.initialize()
                assert "deploy" in {p.name for p in (await s.list_prompts()).prompts}

    _run(main)


def test_over_the_limit_is_refused_not_cut(tmp_path):
    home, proj = _tree(tmp_path)
    big = proj / ".claude" / "skills" / "big"
    big.mkdir()
    (big / "SKILL.md").write_text(SKILL.format(name="big", desc="Big", body="x" * 5000))

    async def main():
        params = _params(home, proj)
        params.args.insert(params.args.index("--mcp"), "--max-result-bytes=4000")
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                res = await s.call_tool("skill_load", {"name": "big"})
                assert res.is_error and "over the server's limit of 4000 bytes" in res.content[0].text
                assert "x" * 100 not in res.content[0].text
                ok = _json(await s.call_tool("skill_load", {"name": "triage"}))
                assert ok["content"].startswith("Steps of triage")

    _run(main)


def _http_server(home: Path, proj: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp",
                             "--http", "127.0.0.1:0", *extra], stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    line = proc.stderr.readline()
    assert "serving" in line, line
    return proc, line.strip().rsplit(" ", 1)[1]


def _stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    proc.wait(timeout=20)


def test_http_with_bearer_token_and_concurrent_clients(tmp_path):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    home, proj = _tree(tmp_path)
    token = tmp_path / "token"
    token.write_text("s3cret-token\n")
    proc, url = _http_server(home, proj, "--token-file", str(token))
    try:
        async def client(tok: str, path: str) -> list[str]:
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {tok}"})
            async with http:
                async with streamable_http_client(url, http_client=http) as (r, w, *_):
                    async with ClientSession(r, w) as s:
                        await s.initialize()
                        return [f["path"] for f in _json(await s.call_tool("rules_for", {"path": path}))["files"]]

        async def main():
            out: dict[str, list[str]] = {}

            async def one(key: str, path: str) -> None:
                out[key] = await client("s3cret-token", path)

            async with anyio.create_task_group() as tg:
                tg.start_soon(one, "deep", "src/pkg/sub/mod.py")
                tg.start_soon(one, "top", "README.txt")
            assert out == {"deep": DEEP_RULES, "top": []}

        _run(main)
        import urllib.error
        import urllib.request

        req = urllib.request.Request(url, data=b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}', method="POST",
                                     headers={"Authorization": "Bearer wrong", "Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=10)
        assert refused.value.code == 401
    finally:
        _stop(proc)


def test_cli_refuses_a_remote_bind_without_a_token(tmp_path):
    home, proj = _tree(tmp_path)
    res = subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp",
                          "--http", "0.0.0.0:8765"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "non-loopback address needs --token-file" in res.stderr
    res = subprocess.run([sys.executable, "-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp",
                          "--http", "nonsense"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "expected HOST:PORT" in res.stderr


def test_a_client_that_goes_away_ends_the_server_quietly(tmp_path):
    home, proj = _tree(tmp_path)
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}) + "\n"
    proc = subprocess.Popen([sys.executable, "-m", "wskit", "--home", str(home), "serve", str(proj), "--mcp",
                             "--poll", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(init.encode())
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())
    assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "wskit"
    proc.stdout.close()                       # the client is gone: the next write hits a closed pipe
    proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}) + "\n").encode())
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=30) == 0, err
    assert "Traceback" not in err
