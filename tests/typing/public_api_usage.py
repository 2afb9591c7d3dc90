"""A host written against the public API only, for ``mypy --strict`` (tests/typing/test_public_api.py):
every documented name resolves to a real type, never ``Any``."""

from __future__ import annotations

from pathlib import Path

from wskit import (
    AfterTool,
    Budget,
    HostProfile,
    PromptPart,
    RuntimeOptions,
    SessionResources,
    SessionState,
    SkippedGuard,
    ToolDecision,
    ToolKind,
    ToolSpec,
    TrustStore,
    UserAnswer,
    WorkspaceCache,
    WorkspaceResources,
    attach,
    restore,
    snapshot,
    system_prompt,
)

__all__ = ["host"]


def host(home: Path, project: Path) -> str:
    """Every step of docs/integrating.md, typed."""
    TrustStore.for_home(home).grant(project)
    cache: WorkspaceCache = WorkspaceCache(HostProfile(name="typed", home=home))
    workspace: WorkspaceResources = cache.resolve(project)
    session: SessionResources = snapshot(workspace)
    attach(session, RuntimeOptions(tools=[ToolSpec("shell", matches_as="Bash", kind=ToolKind.SHELL,
                                                   command_arg="cmd")], unapproved="report"))
    prompt: PromptPart = system_prompt(session, skills_budget=Budget(max_bytes=4096))
    decision: ToolDecision = session.before_tool("shell", {"cmd": "echo hi"}, ask=lambda d: UserAnswer(True))
    skipped: tuple[SkippedGuard, ...] = decision.skipped
    after: AfterTool = session.after_tool("shell", decision.input, "hi", decision=decision)
    reveal_type(session.rules)  # noqa: F821 - mypy's
    reveal_type(session.skill_workflows)  # noqa: F821
    reveal_type(session.permissions)  # noqa: F821
    reveal_type(session.hook_runner)  # noqa: F821
    reveal_type(session.runtime)  # noqa: F821
    reveal_type(session.check_permission("Bash", {"command": "ls"}))  # noqa: F821
    reveal_type(session.check_invocation("Write", ToolKind.WRITE, ["a.md"]))  # noqa: F821
    reveal_type(session.expand_command)  # noqa: F821
    reveal_type(decision.permission)  # noqa: F821
    reveal_type(restore)  # noqa: F821
    state: SessionState = session.state()
    resumed = restore(state.to_json(), cache.resolve(project))
    reveal_type(resumed)  # noqa: F821
    session.close()
    return prompt.text + after.for_model("hi") + str(len(skipped))
