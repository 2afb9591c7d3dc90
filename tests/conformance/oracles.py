"""Asking the installed hosts what they load (shared/reference/host-oracles.md).

Each ``ask_<host>`` lays a case out in a fresh temporary folder (project and home),
runs the real host there with ``HOME`` set to the temporary home, reads what the host
says it loaded, kills the host's process group and returns the normalised answer:
``{"instructions": [label, ...], "skills": [name, ...]}``. Labels are the markers
the case put in each file (:func:`tests.conformance.cases.marker`), in the order the
host delivered them. Nothing here runs in the default test run: only
``python -m tests.conformance.record`` and ``WSKIT_HOST_ORACLES=1`` call it.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["HOSTS", "ask", "binary", "host_version", "opencode_messages", "opencode_standin"]

HOSTS_DIR = Path(os.environ.get("WSKIT_HOSTS_DIR") or next(
    (d for d in ("/work/hosts", "/work/oracles") if Path(d).is_dir()), "/work/hosts"))
_BIN = {
    "claude": HOSTS_DIR / "claude-venv/lib/python3.11/site-packages/claude_agent_sdk/_bundled/claude",
    "codex": HOSTS_DIR / "npm/node_modules/.bin/codex",
    "gemini": HOSTS_DIR / "npm/node_modules/.bin/gemini",
    "opencode": HOSTS_DIR / "npm/node_modules/.bin/opencode",
    "copilot": HOSTS_DIR / "npm/node_modules/.bin/copilot",
}
HOSTS = tuple(_BIN)
_MARK = re.compile(r"S:(\S+)")


def binary(host: str) -> Path | None:
    """The installed host program, or None when it is not installed."""
    p = _BIN[host]
    return p if p.exists() else None


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC", "OPENAI", "GEMINI", "GOOGLE",
                                                                    "CLAUDE", "CODEX", "OPENCODE", "WSKIT",
                                                                    "COPILOT", "GITHUB", "GH_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_STATE_HOME=str(home / ".local/state"), NO_COLOR="1")
    env.update(extra)
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str], *, until=None, timeout: float = 90.0,
         stderr: bool = False) -> str:
    """Run ``cmd`` in its own process group; stop when ``until(stdout_so_far)`` is true,
    the process ends, or ``timeout`` seconds pass; always kill the group. ``stderr``: read
    it with stdout (a host that lists on stderr)."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if stderr else subprocess.DEVNULL, start_new_session=True)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
                if until is not None and until(out.decode("utf-8", "replace")):
                    break
            elif proc.poll() is not None:
                break
            elif until is not None and until(out.decode("utf-8", "replace")):
                break
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdout.close()
    return out.decode("utf-8", "replace")


def host_version(host: str) -> str:
    """``<host> --version`` of the installed host (run with an empty temporary home)."""
    with tempfile.TemporaryDirectory() as h:
        out = _run([str(_BIN[host]), "--version"], Path(h), _env(Path(h)), timeout=60)
    m = re.search(r"\d+\.\d+\.\d+", out)
    return m.group(0) if m else out.strip()


class StandInServer:
    """A stand-in model server on 127.0.0.1 for the recorders (every stand-in here and in
    :mod:`tests.conformance.standin` is one): ``respond(method, raw)`` gives ``(status,
    content type or None, body)`` for each ``GET`` and ``POST`` (``raw``: the request body
    read whole). ``port`` is where it listens; :meth:`close` stops it."""

    def __init__(self, respond: Callable[[str, bytes], tuple[int, str | None, bytes]]) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self, method: str) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                status, content_type, data = respond(method, raw)
                self.send_response(status)
                if content_type is not None:
                    self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):  # noqa: N802
                self._answer("POST")

            def do_GET(self):  # noqa: N802
                self._answer("GET")

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def json_body(raw: bytes):
    """A request body as JSON, or ``{}`` when it is not JSON."""
    try:
        return json.loads(raw)
    except ValueError:
        return {}


class _StandIn(StandInServer):
    """A stand-in model server on 127.0.0.1: records every request body, answers 500."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

        def respond(method: str, raw: bytes) -> tuple[int, str | None, bytes]:
            self.bodies.append(raw)
            return 500, None, b""

        super().__init__(respond)


def _labels(text: str) -> list[str]:
    out: list[str] = []
    for m in _MARK.finditer(text):
        if m.group(1) not in out:
            out.append(m.group(1))
    return out


def _skill_names(text: str) -> list[str]:
    return sorted(set(re.findall(r"SKILLNAME-([A-Za-z0-9_.-]+)", text)))


def ask_codex(project: Path, home: Path, cwd: Path) -> dict:
    out = _run([str(_BIN["codex"]), "debug", "prompt-input"], cwd, _env(home), timeout=60)
    items = json.loads(out[out.index("["):])
    instructions: list[str] = []
    skills = ""
    for item in items:
        for c in item.get("content") or ():
            t = c.get("text", "")
            if t.startswith("# AGENTS.md instructions"):
                instructions = _labels(t)
            if "<skills_instructions>" in t:
                skills = t
    return {"instructions": instructions, "skills": _skill_names(skills)}


def ask_gemini(project: Path, home: Path, cwd: Path) -> dict:
    gem = home / ".gemini"
    gem.mkdir(exist_ok=True)
    settings = gem / "settings.json"
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    settings.write_text(json.dumps(data))
    srv = _StandIn()
    try:
        env = _env(home, GEMINI_API_KEY="x", GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{srv.port}",
                   GEMINI_CLI_TRUST_WORKSPACE="true")

        def done(s: str) -> bool:
            if "Memory is currently empty" in s:
                return True
            m = re.search(r"Current memory content from (\d+) file", s)
            return m is not None and s.count("--- End of Context from") >= int(m.group(1))
        mem = _run([str(_BIN["gemini"]), "-p", "/memory show"], cwd, env, until=done, timeout=60)
        sk = _run([str(_BIN["gemini"]), "skills", "list"], cwd, env, timeout=60)
    finally:
        srv.close()
    return {"instructions": _labels(mem), "skills": _skill_names(sk)}


def ask_gemini_commands(home: Path, cwd: Path, prompts) -> list[list[str]]:
    """Each prompt typed as ``gemini -p PROMPT`` with a stand-in model: ``[prompt, text]``
    where ``text`` is the user turn Gemini CLI sent (its parts joined); the run is killed as
    soon as the first request arrives."""
    gem = home / ".gemini"
    gem.mkdir(exist_ok=True)
    settings = gem / "settings.json"
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    settings.write_text(json.dumps(data))
    out: list[list[str]] = []
    for prompt in prompts:
        srv = _StandIn()
        try:
            env = _env(home, GEMINI_API_KEY="x", GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{srv.port}",
                       GEMINI_CLI_TRUST_WORKSPACE="true")
            _run([str(_BIN["gemini"]), "-p", prompt], cwd, env, until=lambda _s, srv=srv: bool(srv.bodies), timeout=60)
        finally:
            srv.close()
        if not srv.bodies:
            raise RuntimeError(f"gemini sent no model request for {prompt!r}")
        turn = json.loads(srv.bodies[0])["contents"][-1]
        out.append([prompt, "".join(p.get("text", "") for p in turn.get("parts", ()))])
    return out


def opencode_standin(home: Path, port: int) -> None:
    """Point opencode's user configuration in ``home`` at the stand-in model on ``port``."""
    cfg = home / ".config/opencode"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "opencode.json").write_text(json.dumps({
        "$schema": "https://opencode.ai/config.json", "model": "standin/m", "autoupdate": False,
        "share": "disabled",
        "provider": {"standin": {"npm": "@ai-sdk/openai-compatible", "name": "standin",
                                 "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "x"},
                                 "models": {"m": {"name": "m"}}}}}))


def ask_opencode(project: Path, home: Path, cwd: Path) -> dict:
    srv = _StandIn()
    try:
        opencode_standin(home, srv.port)
        env = _env(home, PWD=str(cwd))
        def agent_asked(_s: str = "") -> bool:
            return any(b"title generator" not in b for b in list(srv.bodies))
        proc_out = _run([str(_BIN["opencode"]), "run", "hello"], cwd, env, until=agent_asked, timeout=90)
        del proc_out
        deadline = time.monotonic() + 30
        while not agent_asked() and time.monotonic() < deadline:
            time.sleep(0.2)
        sk = _run([str(_BIN["opencode"]), "debug", "skill"], cwd, env, timeout=60)
    finally:
        srv.close()
    msgs = opencode_messages(srv.bodies, "system")
    text = "\n".join(m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content")) for m in msgs)
    return {"instructions": _labels(text), "skills": _skill_names(sk)}


def opencode_messages(bodies: list[bytes], role: str) -> list[dict]:
    """The ``role`` messages of the first request opencode sent for the agent (not its title
    generator) that holds any."""
    for b in bodies:
        if b"title generator" in b:
            continue
        try:
            msgs = [m for m in json.loads(b).get("messages") or [] if m.get("role") == role]
        except ValueError:
            continue
        if msgs:
            return msgs
    return []


def ask_claude(project: Path, home: Path, cwd: Path) -> dict:
    srv = _StandIn()
    try:
        env = _env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{srv.port}", ANTHROPIC_API_KEY="x",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        out = _run([str(_BIN["claude"]), "-p", "hi", "--output-format", "stream-json", "--verbose"], cwd, env,
                   until=lambda s: "\n" in s and bool(srv.bodies), timeout=60)
    finally:
        srv.close()
    init = json.loads(out.splitlines()[0]) if out.strip() else {}
    prompt = ""
    listing: dict[str, str] = {}
    for b in srv.bodies:
        listing.update(_listing(b.decode("utf-8", "replace")))
    for b in srv.bodies:
        try:
            body = json.loads(b)
        except ValueError:
            continue
        if body.get("messages"):
            prompt = json.dumps(body["messages"][0].get("content"))
            break
    return {"instructions": _labels(prompt.replace("\\n", "\n")),
            "skills": sorted(s for s in init.get("skills", []) if s.startswith("sk-")),
            "slash_commands": sorted(c for c in init.get("slash_commands", []) if c.startswith(("sk-", "cmd-"))),
            "descriptions": dict(sorted(listing.items()))}


#: one line of the skill listing Claude Code puts in its request: ``- name: description``
_LISTED = re.compile(r"^- ((?:sk|cmd)-[A-Za-z0-9_.:-]+): (.*)$", re.M)


def _listing(body: str) -> dict[str, str]:
    """``{name: description}`` of the ``sk-``/``cmd-`` skills and commands listed to the
    model in a request body (the JSON text; its string escapes are read)."""
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    out: dict[str, str] = {}
    for chunk in _strings(data):
        for m in _LISTED.finditer(chunk):
            out.setdefault(m.group(1), m.group(2))
    return out


def _strings(value) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


class _ChatStandIn(StandInServer):
    """A stand-in model speaking the OpenAI chat completions API on 127.0.0.1 (Copilot CLI's
    ``COPILOT_PROVIDER_BASE_URL``, opencode's ``@ai-sdk/openai-compatible``): records every
    request body except those holding ``ignore``; answers the first recorded request with
    ``first_tool`` (``(name, arguments)``) when given, every other with a short text."""

    def __init__(self, first_tool: tuple[str, dict] | None = None, ignore: str = "") -> None:
        self.bodies: list[dict] = []
        state = {"tool": first_tool}

        def respond(method: str, raw: bytes) -> tuple[int, str | None, bytes]:
            if method == "GET":
                listing = {"object": "list", "data": [{"id": "gpt-4.1", "object": "model"}]}
                return 200, "application/json", json.dumps(listing).encode()
            body = json_body(raw)
            # a side request (opencode's title generator: ``ignore``) is answered with text
            side = bool(ignore) and ignore.encode() in raw
            if not side:
                self.bodies.append(body)
            tool = None if side else state["tool"]
            if not side:
                state["tool"] = None
            if tool is not None:
                delta = {"role": "assistant", "content": None, "tool_calls": [{
                    "index": 0, "id": "call_1", "type": "function",
                    "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}]}
                finish = "tool_calls"
            else:
                delta, finish = {"role": "assistant", "content": "done"}, "stop"
            chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
            data = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in (chunk, end)) + b"data: [DONE]\n\n"
            return 200, "text/event-stream", data

        super().__init__(respond)


def _copilot_env(home: Path, **extra: str) -> dict[str, str]:
    return _env(home, COPILOT_OFFLINE="true", **extra)


def copilot_json(args: list[str], cwd: Path, home: Path, **extra: str):
    """``copilot <args> --json`` in ``cwd`` with ``home``: the parsed JSON it prints."""
    out = _run([str(_BIN["copilot"]), *args, "--json"], cwd, _copilot_env(home, **extra), timeout=60)
    start = min((i for i in (out.find("["), out.find("{")) if i >= 0), default=-1)
    return json.loads(out[start:]) if start >= 0 else None


def copilot_prompt(cwd: Path, home: Path, first_tool: tuple[str, dict] | None = None) -> list[dict]:
    """Run ``copilot -p go --trust-folder`` in ``cwd`` against a stand-in model
    (:class:`_ChatStandIn`); returns the request bodies it sent (the model input)."""
    srv = _ChatStandIn(first_tool)
    try:
        env = _copilot_env(home, COPILOT_PROVIDER_BASE_URL=f"http://127.0.0.1:{srv.port}/v1",
                           COPILOT_PROVIDER_API_KEY="x", COPILOT_MODEL="gpt-4.1")
        want = 2 if first_tool else 1
        _run([str(_BIN["copilot"]), "-p", "go", "--trust-folder", "--allow-all-tools", "--no-auto-update",
              "--disable-builtin-mcps"], cwd, env, until=lambda _s: len(srv.bodies) >= want, timeout=90)
    finally:
        srv.close()
    return [b for b in srv.bodies if b.get("messages")]


def copilot_system(body: dict) -> str:
    """The system message of a Copilot CLI request body."""
    for m in body.get("messages", ()):
        if m.get("role") == "system":
            c = m.get("content")
            return c if isinstance(c, str) else json.dumps(c)
    return ""


def ask_copilot(project: Path, home: Path, cwd: Path) -> dict:
    """Copilot CLI: the instruction files of its system prompt (the ``<custom_instruction>``
    blocks and the instruction files delivered whole after them, in order), the skills of
    ``copilot skill list --json`` (built-ins dropped), the custom agents it offers its
    ``task`` tool, the files it lists for the model to open (``applyTo`` table) and the MCP
    servers of ``copilot mcp list --json`` (``COPILOT_ALLOW_ALL=true``: workspace servers too)."""
    bodies = copilot_prompt(cwd, home)
    system = copilot_system(bodies[0]) if bodies else ""
    listed = re.findall(r"^\| (.+?) \| '([^']+)' \|", system, re.M)
    agents: list[str] = []
    for t in (bodies[0].get("tools", []) if bodies else []):
        fn = t.get("function", {})
        if fn.get("name") == "task":
            text = fn.get("description", "")
            if "User-provided custom agents:" in text:
                agents = sorted(re.findall(r"^- \*\*([^*]+)\*\*", text.split("User-provided custom agents:", 1)[1], re.M))
    skills = copilot_json(["skill", "list"], cwd, home) or []
    mcp = copilot_json(["mcp", "list"], cwd, home, COPILOT_ALLOW_ALL="true") or {}
    return {"instructions": _labels(system),
            "skills": sorted(s["name"] for s in skills if s.get("source") != "builtin" and s["name"].startswith("sk-")),
            "listed": [[p, f] for p, f in listed if p.strip() != "Pattern" and not p.startswith("---")],
            "agents": agents,
            "mcp": sorted((mcp.get("mcpServers") or {}))}


_ASK = {"claude": ask_claude, "codex": ask_codex, "gemini": ask_gemini, "opencode": ask_opencode,
        "copilot": ask_copilot}


def ask(host: str, case) -> dict:
    """Lay ``case`` out in a temporary folder and ask the installed ``host`` what it loads."""
    base = Path(tempfile.mkdtemp(prefix=f"wskit-oracle-{host}-"))
    try:
        project, home, cwd = case.lay_out(base)
        answer = _ASK[host](project, home, cwd)
        if getattr(case, "commands", ()) and host == "gemini":
            answer["commands"] = ask_gemini_commands(home, cwd, case.commands)
        return answer
    finally:
        shutil.rmtree(base, ignore_errors=True)
