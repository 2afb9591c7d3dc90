"""The gate on the event loop (issue 36, item 1): ``abefore_tool`` / ``aafter_tool`` run hooks
through ``HookRunner.arun`` (asyncio subprocesses, an async HTTP client), give the same answer
as the sync path on every decision path, kill a cancelled call's hook processes, and pass the
gate's ``unapproved`` policy to the runner. Real settings files, real hook processes, a real
loopback HTTP server."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.core.session.test_gate import BLOCK_RM, REWRITE, TOOLS, tree
from wskit import HostProfile, RuntimeOptions, UserAnswer, WorkspaceCache, attach, snapshot
from wskit.builtin_plugins.hooks.http import UrlPolicy
from wskit.builtin_plugins.hooks.runner import HookRunnerConfig


#: a hook's JSON answer on stdout (PreToolUse)
def _said(decision: str, reason: str = "", **more: Any) -> str:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                  "permissionDecisionReason": reason, **more}}
    return f"echo '{json.dumps(out)}'"


def _cmd(command: str, matcher: str = "Bash", **more: Any) -> dict:
    return {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command, **more}]}]}


def _http(url: str, matcher: str = "Bash", event: str = "PreToolUse", **more: Any) -> dict:
    return {event: [{"matcher": matcher, "hooks": [{"type": "http", "url": url, **more}]}]}


class _Hooks(BaseHTTPRequestHandler):
    """A hook server: the path says what it answers."""

    def log_message(self, *a: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        path = self.path
        if path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/deny")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path == "/slow":
            time.sleep(2)
        status, body = 200, b"{}"
        if path == "/deny":
            body = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                      "permissionDecisionReason": "remote policy"}}).encode()
        elif path == "/ask":
            body = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                                      "permissionDecisionReason": "remote asks"}}).encode()
        elif path == "/context":
            body = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                      "additionalContext": "remote says lint ok"}}).encode()
        elif path == "/huge":
            body = b"x" * (300 * 1024)
        elif path == "/error":
            status = 500
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that stopped reading an oversized answer is the point of that case


@pytest.fixture(scope="module")
def hook_server():
    srv = _Server(("127.0.0.1", 0), _Hooks)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


LOCAL = HookRunnerConfig(http_policy=UrlPolicy.local_testing())

#: name -> (tree arguments, runtime options, calls). A call is ("before", tool, input, ask)
#: or ("after", tool, input, result); ``ask`` is None, True, False or a UserAnswer.
SCENARIOS: dict[str, tuple[dict, dict, list]] = {
    "hook exit 2 denies": (dict(user_hooks=_cmd(BLOCK_RM), permissions={"allow": ["Bash"]}), {},
                           [("before", "shell", {"cmd": "rm -rf build"}, None),
                            ("before", "shell", {"cmd": "echo ok"}, None)]),
    "hook JSON denies": (dict(user_hooks=_cmd(_said("deny", "not here")), permissions={"allow": ["Bash"]}), {},
                         [("before", "shell", {"cmd": "ls"}, None)]),
    "hook allow overrides an ask mode": (dict(user_hooks=_cmd(_said("allow", "fine")), rules=False), {},
                                         [("before", "shell", {"cmd": "ls"}, None)]),
    "hook asks, no callback": (dict(user_hooks=_cmd(_said("ask", "sure?")), permissions={"allow": ["Bash"]},
                                    rules=False), {}, [("before", "shell", {"cmd": "ls"}, None)]),
    "hook asks, user says yes": (dict(user_hooks=_cmd(_said("ask", "sure?")), permissions={"allow": ["Bash"]},
                                      rules=False), {}, [("before", "shell", {"cmd": "ls"}, True)]),
    "hook asks, user says no for the session": (
        dict(user_hooks=_cmd(_said("ask", "sure?")), permissions={"allow": ["Bash"]}, rules=False), {},
        [("before", "shell", {"cmd": "ls"}, UserAnswer(False, remember="session")),
         ("before", "shell", {"cmd": "ls"}, None)]),
    "hook rewrites the input": (dict(user_hooks=_cmd(REWRITE, matcher="Write"), permissions={"allow": ["Write"]}),
                                {}, [("before", "write_file", {"path": "notes/draft.md", "text": "x"}, None)]),
    "hook fails (non-blocking)": (dict(user_hooks=_cmd("echo broken >&2; exit 7"), permissions={"allow": ["Bash"]},
                                       rules=False), {}, [("before", "shell", {"cmd": "ls"}, None)]),
    "hook times out, ignored": (dict(user_hooks=_cmd("sleep 5", timeout=0.3), permissions={"allow": ["Bash"]},
                                     rules=False), {}, [("before", "shell", {"cmd": "ls"}, None)]),
    "hook times out, timeoutBehavior deny": (
        dict(user_hooks=_cmd("sleep 5", timeout=0.3), permissions={"allow": ["Bash"]}, rules=False),
        {"hooks": HookRunnerConfig(timeout_behavior="deny")}, [("before", "shell", {"cmd": "ls"}, None)]),
    "hook fails, failureBehavior ask": (
        dict(user_hooks=_cmd("exit 1"), permissions={"allow": ["Bash"]}, rules=False),
        {"hooks": HookRunnerConfig(failure_behavior="ask")}, [("before", "shell", {"cmd": "ls"}, None)]),
    "permission deny rule": (dict(permissions={"deny": ["Read(./.env)"]}), {},
                             [("before", "read_file", {"path": ".env"}, None)]),
    "permission ask, yes, rules barrier holds": (dict(permissions={"ask": ["Write(./RELEASE.md)"]}), {},
                                                 [("before", "write_file", {"path": "RELEASE.md"}, True)]),
    "permission ask remembered locally": (dict(rules=False), {},
                                          [("before", "shell", {"cmd": "make test"}, UserAnswer(True, "local")),
                                           ("before", "shell", {"cmd": "make test"}, None)]),
    "rules attached to a read, once": (dict(permissions={"allow": ["Read"]}), {},
                                       [("before", "read_file", {"path": "docs/guide.md"}, None),
                                        ("after", "read_file", {"path": "docs/guide.md"}, "# Guide\n"),
                                        ("before", "read_file", {"path": "docs/guide.md"}, None)]),
    "unapproved project hook, reported": (dict(project_hooks=_cmd(BLOCK_RM), permissions={"allow": ["Bash"]},
                                               rules=False), {}, [("before", "shell", {"cmd": "rm -rf x"}, None)]),
    "unapproved project hook, blocked": (dict(project_hooks=_cmd(BLOCK_RM), permissions={"allow": ["Bash"]},
                                              rules=False), {"unapproved": "block"},
                                         [("before", "shell", {"cmd": "ls"}, None),
                                          ("before", "read_file", {"path": "x"}, None)]),
    "post hook context and block": (
        dict(user_hooks={"PostToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"tests fail\"}'"},
            {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", "
                                           "\"additionalContext\": \"lint ok\"}}'"}]}]},
             permissions={"allow": ["Bash"]}, rules=False), {},
        [("after", "shell", {"cmd": "make"}, {"stdout": "done"}), ("after", "shell", {"cmd": "make"}, None)]),
}

#: the same with an HTTP hook (url filled in from the loopback server)
HTTP_SCENARIOS: dict[str, tuple[str, dict, list]] = {
    "http hook denies": ("/deny", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook asks": ("/ask", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook allows": ("/ok", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook refused by the URL policy": ("/deny", {}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook redirects": ("/redirect", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook answers 500": ("/error", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook answers too much": ("/huge", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http hook times out": ("/slow", {"hooks": LOCAL}, [("before", "shell", {"cmd": "ls"}, None)]),
    "http post hook context": ("/context", {"hooks": LOCAL}, [("after", "shell", {"cmd": "ls"}, "out")]),
}


def _session(home: Path, project: Path, options: dict):
    session = snapshot(WorkspaceCache(HostProfile(name="wskit", home=home)).resolve(project))
    attach(session, RuntimeOptions(tools=TOOLS, **options))
    return session


def _outcome(outcome: Any) -> Any:
    if outcome is None:
        return None
    data = outcome.to_json()
    for r in data["results"]:
        r.pop("duration")
    return data


def _record(item: Any, root: Path) -> Any:
    """A decision or after-tool answer as comparable JSON (the temporary folder named ``<root>``)."""
    if hasattr(item, "decision"):
        data = {**item.to_json(), "hook": _outcome(item.hook)}
    else:
        data = {"context": item.context, "blocked": item.blocked, "reason": item.reason,
                "rules_text": item.rules_text, "notice": None if item.notice is None else item.notice.message,
                "skipped": [s.to_json() for s in item.skipped], "warnings": list(item.warnings),
                "hook": _outcome(item.hook)}
    return json.loads(json.dumps(data, default=str).replace(str(root), "<root>"))


def _play(root: Path, args: dict, options: dict, calls: list, mode: str) -> list:
    root.mkdir()
    home, project = tree(root, **args)
    session = _session(home, project, options)
    out: list = []

    async def ask_async(answer: Any, decision: Any) -> Any:
        await asyncio.sleep(0)
        return answer

    async def play_async() -> None:
        for i, (step, tool, tool_input, extra) in enumerate(calls):
            if step == "before":
                ask = None if extra is None else (lambda d, a=extra: ask_async(a, d))
                out.append(await session.abefore_tool(tool, tool_input, tool_use_id=f"t{i}", ask=ask))
            else:
                out.append(await session.aafter_tool(tool, tool_input, extra, tool_use_id=f"t{i}"))

    if mode == "async":
        asyncio.run(play_async())
    else:
        for i, (step, tool, tool_input, extra) in enumerate(calls):
            if step == "before":
                ask = None if extra is None else (lambda d, a=extra: a)
                out.append(session.before_tool(tool, tool_input, tool_use_id=f"t{i}", ask=ask))
            else:
                out.append(session.after_tool(tool, tool_input, extra, tool_use_id=f"t{i}"))
    settings = project / ".claude" / "settings.local.json"
    written = json.loads(settings.read_text()) if settings.exists() else None
    return [_record(x, root) for x in out] + [{"settings.local.json": written}]


def _both(tmp_path: Path, args: dict, options: dict, calls: list) -> list:
    sync = _play(tmp_path / "sync", args, options, calls, "sync")
    async_ = _play(tmp_path / "async", args, options, calls, "async")
    assert async_ == sync
    return sync


#: what each scenario must decide, so the comparison is not between two wrong answers
EXPECTED = {
    "hook exit 2 denies": [("deny", "hook"), ("deny", "rules")],
    "hook JSON denies": [("deny", "hook")],
    "hook allow overrides an ask mode": [("allow", "hook")],
    "hook asks, no callback": [("ask", "hook")],
    "hook asks, user says yes": [("allow", "user")],
    "hook asks, user says no for the session": [("deny", "user"), ("deny", "permission")],
    "hook rewrites the input": [("allow", "permission")],
    "hook fails (non-blocking)": [("allow", "permission")],
    "hook times out, ignored": [("allow", "permission")],
    "hook times out, timeoutBehavior deny": [("deny", "hook")],
    "hook fails, failureBehavior ask": [("ask", "hook")],
    "permission deny rule": [("deny", "permission")],
    "permission ask, yes, rules barrier holds": [("deny", "rules")],
    "permission ask remembered locally": [("allow", "user"), ("allow", "permission")],
    "rules attached to a read, once": [("allow", "permission"), None, ("allow", "permission")],
    "unapproved project hook, reported": [("allow", "permission")],
    "unapproved project hook, blocked": [("deny", "unapproved-hook"), ("allow", "permission")],
    "post hook context and block": [None, None],
    "http hook denies": [("deny", "hook")],
    "http hook asks": [("ask", "hook")],
    "http hook allows": [("allow", "permission")],
    "http hook refused by the URL policy": [("deny", "hook")],
    "http hook redirects": [("allow", "permission")],
    "http hook answers 500": [("allow", "permission")],
    "http hook answers too much": [("allow", "permission")],
    "http hook times out": [("allow", "permission")],
    "http post hook context": [None],
}


def _decisions(records: list) -> list:
    return [(r["decision"], r["source"]) if "decision" in r else None for r in records[:-1]]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_sync_and_async_gate_decide_alike(tmp_path, name) -> None:
    args, options, calls = SCENARIOS[name]
    records = _both(tmp_path, args, options, calls)
    assert _decisions(records) == EXPECTED[name]
    if name == "hook rewrites the input":
        assert records[0]["input"] == {"path": "notes/final.md", "text": "x"}
    if name == "hook times out, ignored":
        assert records[0]["hook"]["results"][0]["status"] == "timeout"
    if name == "rules attached to a read, once":
        assert "British English" in records[0]["rules_text"] and records[2]["rules_text"] == ""
    if name == "permission ask remembered locally":
        assert records[-1] == {"settings.local.json": {"permissions": {"allow": ["Bash(make test)"]}}}
    if name == "unapproved project hook, blocked":
        assert "unapproved='block'" in records[0]["reason"]
    if name == "post hook context and block":
        assert records[0]["blocked"] and records[0]["reason"] == "tests fail" and records[0]["context"] == "lint ok"


@pytest.mark.parametrize("name", sorted(HTTP_SCENARIOS))
def test_sync_and_async_http_hooks_decide_alike(tmp_path, hook_server, name) -> None:
    path, options, calls = HTTP_SCENARIOS[name]
    event = "PostToolUse" if calls[0][0] == "after" else "PreToolUse"
    args = dict(user_hooks=_http(hook_server + path, event=event, **({"timeout": 0.5} if path == "/slow" else {})),
                permissions={"allow": ["Bash"]}, rules=False)
    records = _both(tmp_path, args, options, calls)
    assert _decisions(records) == EXPECTED[name]
    results = records[0]["hook"]["results"]
    status = {"/huge": "error", "/error": "error", "/redirect": "error", "/slow": "error"}.get(path)
    if status:
        assert results[0]["status"] == status
    if name == "http hook refused by the URL policy":
        assert results[0]["status"] == "refused" and "plain http is refused" in records[0]["reason"]
    if path == "/context":
        assert records[0]["context"] == "remote says lint ok"


# -- cancellation -----------------------------------------------------------------------------

def _gone(pid: int) -> bool:
    """True once ``pid`` is no process (or a zombie nobody will run again)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_cancelled_call_kills_its_hook_process_group(tmp_path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    # the hook starts a child and waits; both write their pid
    command = (f"sleep 300 & echo $! > {marks}/child; echo $$ > {marks}/shell; wait")
    home, project = tree(tmp_path, user_hooks=_cmd(command, timeout=600), permissions={"allow": ["Bash"]},
                         rules=False)
    session = _session(home, project, {})

    async def main() -> tuple[int, int]:
        task = asyncio.ensure_future(session.abefore_tool("shell", {"cmd": "ls"}, tool_use_id="c1"))
        for _ in range(600):  # up to 60 s on a loaded machine
            if (marks / "child").exists() and (marks / "shell").exists():
                break
            await asyncio.sleep(0.1)
        shell, child = int((marks / "shell").read_text()), int((marks / "child").read_text())
        assert not _gone(shell) and not _gone(child)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return shell, child

    shell, child = asyncio.run(main())
    for _ in range(100):
        if _gone(shell) and _gone(child):
            break
        time.sleep(0.05)
    assert _gone(shell) and _gone(child)
    # nothing was recorded for the cancelled call: the same id runs its hooks again
    runner = session.hook_runner
    assert ("c1", "PreToolUse") not in runner._done


def test_hooks_of_one_call_do_not_hold_up_another_on_the_loop(tmp_path) -> None:
    """A hook that waits for a file another coroutine writes: on the loop both make progress
    (a hook run that blocked the loop would wait out its timeout and be reported so)."""
    flag = tmp_path / "go"
    waiter = f"while [ ! -f {flag} ]; do sleep 0.05; done; echo released >&2; exit 2"
    home, project = tree(tmp_path, user_hooks=_cmd(waiter, timeout=60), permissions={"allow": ["Bash"]},
                         rules=False)
    session = _session(home, project, {})

    async def main() -> Any:
        task = asyncio.ensure_future(session.abefore_tool("shell", {"cmd": "ls"}))
        await asyncio.sleep(0.2)
        assert not task.done()
        flag.write_text("")
        return await task

    d = asyncio.run(main())
    assert (d.decision, d.source, d.reason) == ("deny", "hook", "released")


def test_a_hook_that_never_reads_a_large_input_still_times_out(tmp_path) -> None:
    """The payload is written by its own writer on both paths: a hook that never reads stdin
    (an input larger than the pipe's buffer) is killed at its timeout, not waited for."""
    home, project = tree(tmp_path, user_hooks=_cmd("sleep 30", timeout=0.5), permissions={"allow": ["Bash"]},
                         rules=False)
    big = {"cmd": "echo " + "x" * (45 * 1024)}  # twice in the payload (cmd, command): 90 KiB
    sync = _session(home, project, {}).before_tool("shell", big)
    async_ = asyncio.run(_session(home, project, {}).abefore_tool("shell", big))
    for d in (sync, async_):
        # killed at its timeout (a blocked write would have waited for the hook's end: "success")
        assert d.hook is not None and [r.status for r in d.hook.results] == ["timeout"]


# -- the unapproved policy reaches the runner ------------------------------------------------------

@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_gates_unapproved_policy_is_the_runners(tmp_path, mode) -> None:
    """``block`` goes to the runner: the approved hook after the unapproved guard is not run
    (the runner stops the event); ``report`` runs it and lists the guard; unset, the runner
    config's own policy holds (a runner set to block is not weakened by the gate)."""
    marker = tmp_path / "ran"
    user = _cmd(f"echo x >> {marker}")
    project_hooks = _cmd(BLOCK_RM)
    home, project = tree(tmp_path, user_hooks=user, project_hooks=project_hooks, permissions={"allow": ["Bash"]},
                         rules=False)

    def decide(**options: Any) -> Any:
        session = _session(home, project, options)
        if mode == "sync":
            return session.before_tool("shell", {"cmd": "ls"})
        return asyncio.run(session.abefore_tool("shell", {"cmd": "ls"}))

    blocked = decide(unapproved="block")
    assert (blocked.decision, blocked.source) == ("deny", "unapproved-hook") and not marker.exists()
    assert blocked.hook is not None and blocked.hook.results[-1].message.startswith("not run: a guard")
    reported = decide(unapproved="report", hooks=HookRunnerConfig(unapproved="block"))
    assert reported.decision == "allow" and marker.read_text() == "x\n"
    assert [(s.guard, s.reason) for s in reported.skipped] == [("hook", "awaiting-approval")]
    by_runner = decide(hooks=HookRunnerConfig(unapproved="block"))
    assert (by_runner.decision, by_runner.source) == ("deny", "unapproved-hook") and marker.read_text() == "x\n"
    default = decide()
    assert default.decision == "allow" and marker.read_text() == "x\nx\n"

