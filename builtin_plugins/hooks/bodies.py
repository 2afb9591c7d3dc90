"""The body of ``wsctl hooks run EVENT [PATH]`` with plain arguments (click-free: the
per-turn dispatcher :mod:`wskit.cli.fast` and the click command
:mod:`wskit.builtin_plugins.hooks.cli` both call it)."""

from __future__ import annotations

import json

from wskit.cli.context import WsctlContext, read_user_input, safe_text
from wskit.cli.plain import ExitStatus, bad_parameter, echo
from wskit.errors import WskitError
from wskit.fs import SafeFsError, jsonsafe


def run_hooks(obj: WsctlContext, event: str, path: str, payload_file: str | None = None, tool: str | None = None,
              allow_http: bool = False, allow_loopback: bool = False, allow_private: bool = False,
              unapproved: str = "report") -> None:
    """``wsctl hooks run EVENT PATH``: run the hooks of ``event`` for the workspace holding
    ``path`` with the JSON object in ``payload_file`` (``-``: standard input, as a host
    pipes the payload it would give a command hook) and print the outcome.

    Exit status 0 when the hooks decided (allowed or blocked), 3 when not decided: a hook
    of the event did not run (awaiting approval…) and nothing blocked (:class:`ExitStatus`).

    :param unapproved: ``report`` or ``block`` (:class:`~wskit.builtin_plugins.hooks.runner.HookRunnerConfig`)."""
    from wskit.builtin_plugins.hooks.http import UrlPolicy
    from wskit.builtin_plugins.hooks.runner import HookRunnerConfig
    from wskit.resources.hooks import HOOK_EVENTS
    from wskit.session import snapshot
    from wskit.session.runtime import RuntimeOptions, attach

    if event not in HOOK_EVENTS:
        raise bad_parameter(f"unknown event {event!r}; one of: {', '.join(sorted(HOOK_EVENTS))}",
                            param_hint="EVENT")
    payload = {}
    if payload_file:
        shown = "standard input" if payload_file == "-" else payload_file
        try:
            payload = jsonsafe.loads(read_user_input(payload_file), path=shown)
        except (ValueError, SafeFsError) as err:
            raise WskitError(f"{shown}: not JSON: {err}") from None
        if not isinstance(payload, dict):
            raise WskitError(f"{shown}: the payload must be a JSON object")
    from wskit.builtin_plugins.hooks.runner import MATCH_FIELDS

    if tool is not None and event not in MATCH_FIELDS and "tool_input" not in payload:
        payload["tool_input"] = {}  # Claude Code always sends the tool's input, if only {}
    session = snapshot(obj.resolve(path))
    policy = UrlPolicy(allow_http=allow_http, allow_loopback=allow_loopback, allow_private=allow_private)
    rt = attach(session, RuntimeOptions(hooks=HookRunnerConfig(http_policy=policy, unapproved=unapproved)))
    try:
        outcome = rt.hooks.run(event, payload, tool=tool)
    finally:
        session.close()

    undecided = outcome.undecided

    def human() -> None:
        decision = outcome.permission_decision
        if outcome.blocked:
            verdict = f"blocked: {outcome.reason}"
        elif undecided:
            failed = outcome.failed
            n = len(undecided) - len(failed)
            parts = [f"{n} hook(s) " + ("await approval" if n == outcome.awaiting_approval else "did not run")] \
                if n else []
            if failed:
                parts.append(f"{len(failed)} hook(s) failed ({', '.join(dict.fromkeys(r.failure for r in failed))})")
            verdict = "not decided: " + "; ".join(parts)
        elif decision in ("ask", "defer"):
            verdict = decision + (f": {outcome.reason}" if outcome.reason else "")
        else:
            verdict = "allowed" + (f": {outcome.reason}" if decision == "allow" and outcome.reason else "")
        echo(safe_text(f"{event}: {verdict} ({len(outcome.results)} hook(s))"))
        for r in outcome.results:
            echo(f"  {r.status:8} {r.hook_id}" + (f"  {r.message}" if r.message else ""))
        for ctx in outcome.additional_context:
            echo("added context: " + ctx.replace("\n", "\n  "))
        for w in outcome.warnings:
            echo(f"warning: {w}", err=True)
        n = outcome.awaiting_approval
        if n:
            import shlex

            echo(safe_text(f"{n} hook{'s await' if n != 1 else ' awaits'} approval "
                                 f"('wsctl hooks status {shlex.quote(str(session.binding.source_root))}' shows "
                                 "each and how to approve it)"), err=True)
        if outcome.updated_input is not None:
            echo(f"updated input: {json.dumps(outcome.updated_input)}")

    obj.emit(outcome.to_json(), human)
    if undecided and not outcome.blocked:
        raise ExitStatus(3)
