"""Live MCP sessions against a real SDK server (tests/plugins/wskit_mcp/mcp_server.py over
stdio): elicitation through callbacks and hooks, sampling, recovery after the server dies,
list_changed, prompts and resources, cancellation, bounded results, project approval."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from wskit.binding import Binding
from wskit.plugin.facade import WskitHooks
from wskit.plugin.manager import make_plugin_manager
from wskit.resources.hooks import HookDefinition
from wskit.resources.servers import McpServer
from wskit.session.build import provenance, session_from_resources
from wskit.session.runtime import RuntimeOptions, attach

SERVER = Path(__file__).resolve().parent / "mcp_server.py"

# Live servers restarted, killed and cancelled (~15 s in all): the slow step runs it; the default run
# keeps test_mcp_service.py and test_mcp_cli.py against the same server.
pytestmark = pytest.mark.slow


def mcp_def(name: str, scope: str = "user", **fields) -> McpServer:
    prov = provenance(scope, "/src", ".mcp.json", {name: fields})
    return McpServer(id=f"{scope}:{name}", name=name, alias=name, provenance=prov, **fields)


@pytest.fixture
def facade():
    import wskit_mcp

    pm = make_plugin_manager(load_entrypoints=False, env={})
    pm.register(wskit_mcp, name="mcp-client")
    return WskitHooks(pm)


@pytest.fixture
def binding(tmp_path: Path) -> Binding:
    root = tmp_path / "proj"
    root.mkdir()
    return Binding(source_root=root, execution_root=root, cwd=root)


def session_with(binding, facade, defs, options=None, env=None):
    from wskit_mcp import McpService

    s = session_from_resources(binding, defs, hooks=facade)
    services = {"mcp": McpService.factory(options)} if options is not None else {}
    attach(s, RuntimeOptions(env=env or {}, services=services))
    return s


def wait_for(pred, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_elicitation_by_callback_then_hooks_and_sampling(binding, facade, tmp_path):
    """The callback answers; an ``Elicitation`` hook answers before it; an
    ``ElicitationResult`` hook that blocks turns the answer into a decline; sampling
    goes to ``on_sample``."""
    from wskit_mcp import McpElicitResponse, McpOptions, McpSampleResponse

    asked, sampled = [], []

    def on_elicit(req):
        asked.append(req)
        return McpElicitResponse("accept", {"name": "bob"})

    def on_sample(req):
        sampled.append(req)
        return McpSampleResponse(text="hi there", model="scripted")

    s = session_with(binding, facade, [mcp_def("tester", command=sys.executable, args=(str(SERVER),))],
                     McpOptions(on_elicit=on_elicit, on_sample=on_sample))
    try:
        assert s.mcp.call_tool("tester", "ask")["text"] == "accept:bob"
        (req,) = asked
        assert req.server == "user:tester" and req.message == "What is your name?"
        assert req.requested_schema["properties"]["name"]["type"] == "string"
        assert s.mcp.call_tool("tester", "sample")["text"] == "scripted:hi there"
        assert sampled[0].system_prompt == "be brief" and sampled[0].messages[0]["content"]["text"] == "say hi"

        seen = []
        s.runtime.hooks.register_function(
            "Elicitation", lambda p: seen.append(p) or {"hookSpecificOutput": {
                "hookEventName": "Elicitation", "action": "accept", "content": {"name": "alice"}}}, matcher="tester")
        assert s.mcp.call_tool("tester", "ask")["text"] == "accept:alice"
        assert len(asked) == 1  # the hook answered; the callback was not asked
        assert seen[0]["mcp_server_name"] == "tester" and seen[0]["hook_event_name"] == "Elicitation"

        results = []
        s.runtime.hooks.register_function("ElicitationResult", lambda p: results.append(p) or {"decision": "block"})
        assert s.mcp.call_tool("tester", "ask")["text"] == "decline:"
        assert results[0]["action"] == "accept" and results[0]["content"] == {"name": "alice"}
    finally:
        assert s.close() == []


def test_a_command_hook_answers_and_without_callbacks_the_capability_is_absent(binding, facade, tmp_path):
    answer = '{"hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"name": "carol"}}}'
    hook = HookDefinition(id="user:answer", name="answer", event="Elicitation", matcher="tester",
                          command=f"cat >/dev/null; echo '{answer}'",
                          provenance=provenance("user", tmp_path, ".wskit/settings.json", "answer"))
    d = mcp_def("tester", command=sys.executable, args=(str(SERVER),))
    s = session_with(binding, facade, [d, hook])
    try:
        assert s.mcp.call_tool("tester", "ask")["text"] == "accept:carol"
        from wskit_mcp import McpConnectError

        with pytest.raises(McpConnectError, match="Sampling not supported"):  # no on_sample: not advertised
            s.mcp.call_tool("tester", "sample")
        assert s.mcp.status()[0].status == "connected"  # a refused request is not a dead server
    finally:
        assert s.close() == []


def test_a_killed_server_is_restarted_on_the_next_call_within_the_limit(binding, facade, tmp_path):
    from wskit_mcp import McpConnectError, McpOptions, McpRecovery

    pid_file = tmp_path / "pid"
    d = mcp_def("tester", command=sys.executable, args=(str(SERVER),), env={"PID_FILE": str(pid_file)})
    s = session_with(binding, facade, [d], McpOptions(recovery=McpRecovery(max_restarts=2, backoff=0.1)))
    try:
        assert s.mcp.call_tool("tester", "echo", {"text": "ab"})["text"] == "ba"
        (st,) = s.mcp.status()
        assert (st.status, st.generation, st.restarts, st.tools) == ("connected", 1, 0, None)
        first = int(pid_file.read_text())
        os.kill(first, signal.SIGKILL)  # killed while idle: noticed, restarted before the next request
        assert wait_for(lambda: s.mcp.status()[0].status != "connected" or not s.mcp.connected())
        assert s.mcp.call_tool("tester", "echo", {"text": "cd"})["text"] == "dc"
        assert int(pid_file.read_text()) != first
        st = s.mcp.status()[0]
        assert (st.status, st.generation, st.restarts, st.restarts_left) == ("connected", 2, 1, 1)
        with pytest.raises(McpConnectError, match="connection closed during the request"):
            s.mcp.call_tool("tester", "die")  # dies during the call: never retried
        assert s.mcp.status()[0].status == "restarting"
        assert s.mcp.call_tool("tester", "echo", {"text": "ef"})["text"] == "fe"
        assert s.mcp.status()[0].generation == 3
        with pytest.raises(McpConnectError):
            s.mcp.call_tool("tester", "die")
        with pytest.raises(McpConnectError, match=r"restart limit \(2\) reached"):
            s.mcp.call_tool("tester", "echo", {"text": "x"})
        assert s.mcp.status()[0].status == "failed"
    finally:
        assert s.close() == []


def test_catalog_list_changed_prompts_resources_and_names(binding, facade):
    from wskit_mcp import McpOptions

    changed = threading.Event()
    s = session_with(binding, facade, [mcp_def("tester", command=sys.executable, args=(str(SERVER),))],
                     McpOptions(on_list_changed=lambda server, kind: kind == "tools" and changed.set()))
    try:
        tools = {t["name"]: t for t in s.mcp.list_tools("tester")}
        assert "extra" not in tools and tools["echo"]["full_name"] == "mcp__tester__echo"
        assert s.mcp.call("mcp__tester__echo", {"text": "xy"})["text"] == "yx"
        assert s.mcp.call_tool("tester", "grow")["text"] == "grown"
        assert changed.wait(20), "tools/list_changed was not picked up"
        assert "extra" in {t["name"] for t in s.mcp.list_tools("tester")}
        assert s.mcp.call("mcp__tester__extra")["text"] == "extra!"
        assert {t["full_name"] for t in s.mcp.catalog()} >= {"mcp__tester__extra", "mcp__tester__echo"}
        assert s.mcp.status()[0].tools == len(s.mcp.list_tools("tester"))

        (prompt,) = s.mcp.list_prompts("tester")
        assert prompt["name"] == "review" and prompt["arguments"][0]["name"] == "path"
        got = s.mcp.get_prompt("tester", "review", {"path": "a.py"})
        assert got["messages"][0]["content"]["text"] == "Please review a.py."
        (res,) = s.mcp.list_resources("tester")
        assert res["uri"] == "note://readme"
        assert s.mcp.read_resource("tester", "note://readme")["text"] == "read me first"
    finally:
        assert s.close() == []


def test_cancelling_the_hosts_call_cancels_the_request_on_the_server(binding, facade, tmp_path):
    from wskit_mcp import McpCallCancelled

    cancel_file = tmp_path / "cancelled"
    d = mcp_def("tester", command=sys.executable, args=(str(SERVER),), env={"CANCEL_FILE": str(cancel_file)})
    s = session_with(binding, facade, [d])
    try:
        call = s.mcp.start_call("tester", "slow", {"seconds": 60})
        with pytest.raises(TimeoutError):
            call.result(timeout=0.5)
        assert not call.done()
        assert call.cancel() is True
        assert wait_for(cancel_file.exists), "the server never saw the cancellation"
        with pytest.raises(McpCallCancelled):
            call.result()
        cancel_file.unlink()
        with pytest.raises(McpCallCancelled, match="no answer within 0.5 s"):
            s.mcp.call_tool("tester", "slow", {"seconds": 60}, timeout=0.5)
        assert wait_for(cancel_file.exists)
        assert s.mcp.call_tool("tester", "echo", {"text": "ok"})["text"] == "ko"  # the session goes on
    finally:
        assert s.close() == []


def test_results_and_catalog_entries_are_bounded_with_a_marker(binding, facade):
    from wskit_mcp.projection import MARKER

    s = session_with(binding, facade, [mcp_def("tester", command=sys.executable, args=(str(SERVER),))],
                     env={"MAX_MCP_OUTPUT_TOKENS": "5000"})
    try:
        assert s.mcp.limits.max_item_bytes == 20_000
        res = s.mcp.call_tool("tester", "big", {"mib": 5})
        text = res["text"]
        assert len(text.encode()) < 20_000 + 400 and text.startswith("x" * 100)
        assert f"{MARKER}result text truncated: {5 << 20} bytes, limit 20000" in text
        assert res["projection"][0] == {"index": 0, "type": "text", "bytes": 5 << 20, "limit": 20000,
                                        "action": "truncated"}
        # the SDK also sent it as structured content ({"result": ...}): left out, said so
        assert res["structured"] is None and res["projection"][1]["type"] == "structured"
        assert f"{MARKER}structured content of" in text
        pic = s.mcp.call_tool("tester", "picture")
        assert [c["type"] for c in pic["content"]] == ["text", "text"]
        assert "image (image/png)" in pic["content"][1]["text"] and pic["projection"][0]["action"] == "omitted"
        wordy = next(t for t in s.mcp.list_tools("tester") if t["name"] == "wordy")
        assert len(wordy["description"].encode()) < 2048 + 200 and MARKER in wordy["description"]
        assert any("wordy: description of 10000 bytes" in p for p in s.mcp.problems("tester"))
    finally:
        assert s.close() == []


def test_a_project_server_starts_only_once_approved(binding, facade, tmp_path):
    from wskit.approval.servers import server_entry
    from wskit.approval.store import ApprovalStore
    from wskit.host import HostProfile
    from wskit_mcp import McpApprovalError

    home = tmp_path / "home"
    home.mkdir()
    marker = tmp_path / "started"
    d = mcp_def("proj", scope="project", command=sys.executable,
                args=("-c", f"open({str(marker)!r}, 'w')"))
    s = session_from_resources(binding, [d], hooks=facade)
    object.__setattr__(s, "profile", HostProfile(name="wskit", home=home))
    try:
        with pytest.raises(McpApprovalError, match="wsctl mcp approve proj"):
            s.mcp.connect("proj")
        assert s.mcp.status()[0].status == "needs-approval" and s.mcp.status()[0].approval == "awaiting"
        assert not marker.exists()
        store = ApprovalStore.for_home(home)
        entry = server_entry(d, "mcp", binding.execution_root)
        store.deny(str(binding.source_root), [entry])
        assert s.mcp.status()[0].approval == "denied"
        before = entry.copy_with(definition={**entry.definition, "args": ["-c", "pass"]})
        store.approve(str(binding.source_root), [before], before.digest)  # approved as it was before an edit
        assert s.mcp.status()[0].approval == "modified"
        with pytest.raises(McpApprovalError, match="changed since it was approved"):
            s.mcp.connect("proj")
        store.approve(str(binding.source_root), [entry], entry.digest)
        assert s.mcp.status()[0].approval == "approved"
        assert oct(os.stat(store.path).st_mode & 0o777) == "0o600"
    finally:
        s.close()
