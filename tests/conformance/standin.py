"""A stand-in model that makes Claude Code call one tool, for the conformance recorders.

:func:`claude_tool_round` starts a model server on 127.0.0.1 that answers Claude Code's
first request offering the tool with one ``tool_use`` of it (a streamed Messages API
reply) and every later request with a short text, runs ``claude -p`` against it with a
temporary ``HOME``, and returns the request bodies that offered the tools: the first is
what Claude Code sent before the tool ran, the last holds the tool's result and whatever
Claude Code added beside it. Nothing here runs in the default test run.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from tests.conformance import oracles

__all__ = ["claude_ran_marker", "claude_tool_round", "record_claude", "tool_results"]


def _sse(events: list[dict]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _reply(block: dict, delta: dict, stop: str) -> bytes:
    start = {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                  "model": "stand-in", "content": [], "stop_reason": None,
                                                  "stop_sequence": None,
                                                  "usage": {"input_tokens": 1, "output_tokens": 1}}}
    return _sse([start, {"type": "content_block_start", "index": 0, "content_block": block},
                 {"type": "content_block_delta", "index": 0, "delta": delta},
                 {"type": "content_block_stop", "index": 0},
                 {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                  "usage": {"output_tokens": 1}}, {"type": "message_stop"}])


def claude_tool_round(cwd: Path, home: Path, tool: str, tool_input: dict, args: tuple[str, ...] = ()) -> list[dict]:
    """Run Claude Code in ``cwd`` with a stand-in model that calls ``tool`` with
    ``tool_input`` once; ``args`` are added to ``claude -p``. Returns the request bodies
    that offered ``tool`` (at least two).

    :raises RuntimeError: when Claude Code sent no request after the tool ran.
    """
    bodies: list[dict] = []
    asked = {"done": False}

    def respond(method: str, raw: bytes) -> tuple[int, str | None, bytes]:
        if method != "POST":  # the Messages API is POST only
            return 501, None, b""
        body = oracles.json_body(raw)
        offered = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
        if tool in offered:
            bodies.append(body)
        if tool in offered and not asked["done"]:
            asked["done"] = True
            data = _reply({"type": "tool_use", "id": "toolu_1", "name": tool, "input": {}},
                          {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}, "tool_use")
        else:
            data = _reply({"type": "text", "text": ""}, {"type": "text_delta", "text": "done"}, "end_turn")
        return 200, "text/event-stream", data

    srv = oracles.StandInServer(respond)
    try:
        env = oracles._env(home, ANTHROPIC_BASE_URL=f"http://127.0.0.1:{srv.port}",
                           ANTHROPIC_API_KEY="x", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        oracles._run([str(oracles.binary("claude")), "-p", "go on", "--output-format", "stream-json", "--verbose",
                      *args], cwd, env, until=lambda s: '"type":"result"' in s, timeout=90)
    finally:
        srv.close()
    if len(bodies) < 2:
        raise RuntimeError(f"Claude Code sent no request after its {tool} tool ran")
    return bodies


def tool_results(body: dict) -> list[str]:
    """The text of every ``tool_result`` block in a request body."""
    out: list[str] = []
    for m in body.get("messages", []):
        content = m.get("content")
        if not isinstance(content, list):
            continue
        for c in content:
            if isinstance(c, dict) and c.get("type") == "tool_result":
                inner = c.get("content")
                if isinstance(inner, list):
                    out.append("".join(x.get("text", "") for x in inner if isinstance(x, dict)))
                else:
                    out.append(str(inner))
    return out


def record_claude(recorded: Path, answers: Iterable[tuple[str, Callable[[], object]]]) -> int:
    """Ask the installed Claude Code each ``(case id, ask)`` and rewrite ``recorded``
    (``{"claude": {"version", "recorded", "cases": {id: answer}}}``, other entries kept);
    returns the exit status (1, recording kept, when Claude Code is not installed)."""
    if oracles.binary("claude") is None:
        print("claude: not installed, recording kept", file=sys.stderr)
        return 1
    data = json.loads(recorded.read_text()) if recorded.exists() else {}
    entry = data.setdefault("claude", {"cases": {}})
    entry["version"] = oracles.host_version("claude")
    entry["recorded"] = datetime.date.today().isoformat()
    for cid, ask in answers:
        entry["cases"][cid] = ask()
        print(f"claude {entry['version']} {cid}: {entry['cases'][cid]}", flush=True)
    recorded.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


def claude_ran_marker(lay_out: Callable[[Path, object], tuple[Path, Path, Path]], case: object, *,
                      trusted: bool = False) -> str:
    """``ran`` or ``off``: whether Claude Code's start (``claude -p hi`` against an unreachable
    model, up to its ``init`` line) made a hook write its marker. ``lay_out(base, case)``
    writes the case under a temporary ``base`` and returns ``(home, project, marker)``;
    ``trusted`` marks the project trusted in ``~/.claude.json``."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="wskit-marker-"))
    try:
        home, project, marker = lay_out(base, case)
        if trusted:
            (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
        env = oracles._env(home, ANTHROPIC_BASE_URL="http://127.0.0.1:9", ANTHROPIC_API_KEY="x",
                           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        oracles._run([str(oracles.binary("claude")), "-p", "hi", "--output-format", "stream-json", "--verbose"],
                     project, env, until=lambda out: '"subtype":"init"' in out, timeout=60)
        return "ran" if marker.exists() else "off"
    finally:
        shutil.rmtree(base, ignore_errors=True)
