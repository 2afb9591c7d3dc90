"""The Agent Skills specification as rules (reference/conventions.md §5.1), applied the way
its reference validator ``skills-ref`` does (§5.2): allowed fields, name and description
limits, no YAML flow collections. :func:`spec_findings` gives every violation as an error;
discovery reports them as warnings (:mod:`.lint`) and strict validation as errors
(:mod:`.validate`)."""

from __future__ import annotations

import unicodedata
from typing import Any

import yaml

from wskit.formats.frontmatter import Frontmatter
from wskit.models import Diagnostic

#: Frontmatter fields the specification allows.
SPEC_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
#: Fields Claude Code reads in a skill's or command's frontmatter beyond the specification: the
#: keys of its skill schema (Claude Code 2.1.337, documented and bookkeeping ones such as
#: ``version``), the snake_case spellings wskit accepts, and ``tools`` (a key its frontmatter
#: reader knows, used by skills of the official marketplace). Lenient checks do not call them
#: unknown; strict validation (the specification exactly, as ``skills-ref``) still does.
CLAUDE_CODE_FIELDS = frozenset({
    "model", "allowed-tools", "disallowed-tools", "disallowedTools", "argument-hint", "arguments",
    "disable-model-invocation", "user-invocable", "effort", "shell", "version", "when_to_use", "paths", "hooks",
    "context", "agent", "background", "tools",
    "argument_hint", "user_invocable", "disable_model_invocation", "allowed_tools", "when-to-use",
})
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
#: Codes of findings that strict mode turns from warnings into errors.
STRICT_CODES = frozenset({
    "skill-unknown-field", "skill-missing-name", "skill-name-too-long", "skill-name-format",
    "skill-name-mismatch", "skill-missing-description", "skill-description-too-long",
    "skill-compatibility-invalid", "skill-compatibility-too-long", "skill-bom", "yaml-quoted-retry",
    "skill-yaml-flow-style",
    # what loading reads leniently, as Claude Code does (wskit.formats.frontmatter)
    "yaml-duplicate-key", "yaml-error", "frontmatter-unterminated", "skill-no-frontmatter",
})


def _scalar(v: Any) -> Any:
    """Scalars as the strings a string-only YAML reader sees (``None`` -> ``""``)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return v


def _nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``; ASCII text is its own NFKC form."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def flow_style_line(block: str) -> int | None:
    """1-based line (inside the block) of the first YAML flow collection, or None.

    A flow collection starts with a ``[`` or ``{`` indicator, so a block without
    either has none and is not composed at all (composing with PyYAML's
    pure-Python loader would be 3/4 of skill discovery); otherwise the block
    is composed with libyaml when PyYAML has it.
    """
    if "[" not in block and "{" not in block:
        return None
    try:
        root = yaml.compose(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            if node.flow_style:
                return node.start_mark.line + 1
            items = node.value if isinstance(node, yaml.SequenceNode) else [v for kv in node.value for v in kv]
            stack.extend(items)
    return None


def spec_findings(data: dict[str, Any], slug: str, fm: Frontmatter, path: str,
                  known: frozenset[str] = frozenset()) -> list[Diagnostic]:
    """Every way ``data`` (a parsed frontmatter of ``<slug>/SKILL.md``) breaks the
    specification, as ``error`` diagnostics with codes and lines.

    :param known: fields outside the specification not to report as unknown (the
        lenient checks pass :data:`CLAUDE_CODE_FIELDS`; strict validation nothing)."""
    out: list[Diagnostic] = []

    def err(code: str, key: str | None, msg: str) -> None:
        out.append(Diagnostic(level="error", code=code, path=path,
                              line=fm.line_of(key) if key else None, message=msg))

    if not SPEC_FIELDS.issuperset(data):
        for key in sorted(set(data) - SPEC_FIELDS - known):
            err("skill-unknown-field", key, f"field {key!r} is not part of the Agent Skills specification "
                f"(allowed: {', '.join(sorted(SPEC_FIELDS))})")
    if "name" not in data:
        err("skill-missing-name", None, "required field 'name' is missing")
    else:
        name = _scalar(data["name"])
        if not isinstance(name, str) or not name.strip():
            err("skill-missing-name", "name", "field 'name' must be a non-empty string")
        else:
            name = _nfkc(name.strip())
            if len(name) > MAX_NAME:
                err("skill-name-too-long", "name", f"name {name!r} is {len(name)} characters (limit {MAX_NAME})")
            if name != name.lower():
                err("skill-name-format", "name", f"name {name!r} must be lowercase")
            if name.startswith("-") or name.endswith("-"):
                err("skill-name-format", "name", f"name {name!r} starts or ends with a hyphen")
            if "--" in name:
                err("skill-name-format", "name", f"name {name!r} contains consecutive hyphens")
            bare = name.replace("-", "")  # every character a letter, a digit or '-'
            if bare and not bare.isalnum():
                err("skill-name-format", "name", f"name {name!r} may only hold letters, digits and hyphens")
            if _nfkc(slug) != name:
                err("skill-name-mismatch", "name", f"name {name!r} differs from its folder {slug!r}")
    if "description" not in data:
        err("skill-missing-description", None, "required field 'description' is missing")
    else:
        desc = _scalar(data["description"])
        if not isinstance(desc, str) or not desc.strip():
            err("skill-missing-description", "description", "field 'description' must be a non-empty string")
        elif len(desc) > MAX_DESCRIPTION:
            err("skill-description-too-long", "description",
                f"description is {len(desc)} characters (limit {MAX_DESCRIPTION})")
    flow = flow_style_line(fm.block)
    if flow is not None:
        out.append(Diagnostic(level="error", code="skill-yaml-flow-style", path=path, line=flow + 1,
                              message="frontmatter uses a YAML flow collection ([...] or {...}); "
                              "the specification's reference validator (strictyaml) refuses it"))
    if "compatibility" in data:
        comp = _scalar(data["compatibility"])
        if not isinstance(comp, str):
            err("skill-compatibility-invalid", "compatibility", "field 'compatibility' must be a string")
        elif len(comp) > MAX_COMPATIBILITY:
            err("skill-compatibility-too-long", "compatibility",
                f"compatibility is {len(comp)} characters (limit {MAX_COMPATIBILITY})")
    return out
