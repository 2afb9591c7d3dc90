"""HTTP hooks against a real loopback server: the URL policy, headers, no redirects, size cap."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.builtin_plugins.hooks.runtime_helpers import hook
from wskit.builtin_plugins.hooks.http import HttpHookSecurityError, UrlPolicy
from wskit.builtin_plugins.hooks.runner import HookRunnerConfig
from wskit.session.runtime import RuntimeOptions, attach


@pytest.fixture
def server():
    received = []

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, dict(self.headers), json.loads(body)))
            if self.path == "/redirect":
                self.send_response(302)
                self.send_header("Location", "/deny")
                self.end_headers()
                return
            if self.path == "/huge":
                data = b"x" * (300 * 1024)
            else:
                data = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                          "permissionDecisionReason": "remote policy"}}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", received
    srv.shutdown()
    srv.server_close()


def _run(make_session, url, policy, headers=None, env=None):
    s = make_session(hook("PreToolUse", type="http", url=url, headers=headers or {}))
    attach(s, RuntimeOptions(hooks=HookRunnerConfig(http_policy=policy, env=env or {})))
    return s.runtime.hooks.run("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})


def test_loopback_allowed_by_policy(make_session, server):
    base, received = server
    out = _run(make_session, base + "/deny", UrlPolicy.local_testing(),
               headers={"Authorization": "Bearer ${HOOK_TOKEN}", "X-Other": "${NOT_SET}"}, env={"HOOK_TOKEN": "s3cret"})
    assert out.blocked and out.reason == "remote policy"
    path, headers, body = received[0]
    # a session variable expands; a name that is neither one nor in allowedEnvVars is empty (Claude Code)
    assert headers["Authorization"] == "Bearer s3cret" and headers["X-Other"] == ""
    assert body["tool_input"] == {"command": "rm -rf /"}


def test_loopback_refused_without_policy(make_session, server):
    base, received = server
    out = _run(make_session, base + "/deny", UrlPolicy(allow_http=True))
    assert out.results[0].status == "refused" and "loopback" in out.results[0].message
    assert out.blocked  # a refused URL is a blocking error (Blade's HttpHookSecurityError)
    assert received == []  # nothing was sent
    out = _run(make_session, base + "/deny", UrlPolicy(allow_loopback=True))
    assert "plain http" in out.results[0].message and received == []


def test_redirect_is_an_error_not_followed(make_session, server):
    base, received = server
    out = _run(make_session, base + "/redirect", UrlPolicy.local_testing())
    assert out.results[0].status == "error" and "redirect" in out.results[0].message
    assert [r[0] for r in received] == ["/redirect"] and not out.blocked


def test_oversized_response_is_an_error(make_session, server):
    base, _ = server
    out = _run(make_session, base + "/huge", UrlPolicy.local_testing())
    assert out.results[0].status == "error" and "byte limit" in out.results[0].message


@pytest.mark.parametrize("url,frag", [
    ("https://10.1.2.3/h", "private"), ("https://192.168.0.1/h", "private"), ("https://169.254.169.254/", "private"),
    ("https://[::1]/h", "loopback"), ("https://localhost/h", "loopback"), ("ftp://example.com/", "only http"),
])
def test_policy_refusals(url, frag):
    with pytest.raises(HttpHookSecurityError, match=frag):
        UrlPolicy().check(url)


def test_allowed_hosts_bypass_and_private_switch():
    assert UrlPolicy(allowed_hosts=("*.corp.test",)).check("http://hooks.corp.test/x")[1] == "hooks.corp.test"
    assert UrlPolicy(allow_private=True).check("https://10.0.0.5/x")[2] == 443
