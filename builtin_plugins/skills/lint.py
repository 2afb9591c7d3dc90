"""Lenient checks of a parsed ``<slug>/SKILL.md`` (design §5): what discovery reports
about a skill it loads, and refuses it for.

Used by the discovery engine :mod:`wskit.builtin_plugins.skills.discovery`; the specification's
own findings come from :func:`wskit.builtin_plugins.skills.spec.spec_findings`.
"""

from __future__ import annotations

import re
from typing import Any

from wskit.builtin_plugins.skills.tools import SelectorError, parse_selector, split_value
from wskit.formats.mdwalk import bool_field, text_field
from wskit.fs.text import find_hidden_chars
from wskit.models import Diagnostic

#: Agent Skills name rule: 1-64 of lowercase letters, digits, single hyphens.
SPEC_NAME = re.compile(r"^(?=.{1,64}\Z)[a-z0-9]+(-[a-z0-9]+)*\Z")


#: Per-file byte limit of admin-installed skills (Sakura B3: 524,288 loads, one more is refused).
ADMIN_FILE_LIMIT = 512 * 1024
#: frontmatter that could not be read: the skill loads with no fields (Claude Code 2.1.332 does)
_UNREAD = frozenset({"yaml-error", "yaml-refused", "frontmatter-unterminated", "frontmatter-not-mapping"})
_LENIENT_NOTE = "; read leniently with no fields, as Claude Code does"


def check_skill(fm, slug: str, path: str, has_bom: bool = False, plugin: str | None = None, *,
                strict: bool = False) -> list[Diagnostic]:
    """Lenient checks of a parsed ``<slug>/SKILL.md`` (design §5).

    :returns: diagnostics, warnings only: a ``SKILL.md`` without frontmatter
        (``skill-no-frontmatter``), whose frontmatter does not parse
        (``yaml-error``, ``frontmatter-unterminated``…) or has no description
        loads, as in Claude Code 2.1.332 (no fields; the description from its
        first body line); every violation of the specification
        (:func:`wskit.builtin_plugins.skills.spec.spec_findings`) is a
        ``warning`` with the code strict validation uses as an error, except that a
        field Claude Code reads (:data:`~wskit.builtin_plugins.skills.spec.CLAUDE_CODE_FIELDS`:
        ``version``, ``user-invocable``, ``argument-hint``…) is not called unknown
        unless ``strict`` (the specification exactly).
    """
    return _check(fm, slug, path, has_bom, plugin, strict=strict)[0]


def _check(fm, slug: str, path: str, has_bom: bool, plugin: str | None, *, strict: bool = False
           ) -> tuple[list[Diagnostic], tuple[str, ...] | None]:
    """:func:`check_skill`, also returning the skill's ``allowed_tools`` (see
    :func:`tools_of`; None when the checks stopped early), so the selectors are
    split and parsed once per skill."""
    from wskit.builtin_plugins.skills.spec import CLAUDE_CODE_FIELDS, spec_findings

    diags: list[Diagnostic] = [d.model_copy(update={"plugin": plugin}) for d in fm.diagnostics] if fm.diagnostics else []
    if has_bom:
        diags.append(_warn(path, plugin, "skill-bom", 1, "SKILL.md starts with a byte-order mark (stripped)"))
    if not fm.present:
        diags.append(_warn(path, plugin, "skill-no-frontmatter", 1,
                           "SKILL.md has no '---' YAML frontmatter block; loaded with no fields, described by "
                           "its first body line, as Claude Code does"))
    elif not fm.ok:
        diags = [d.model_copy(update={"level": "warning", "message": d.message + _LENIENT_NOTE})
                 if d.code in _UNREAD and d.level == "error" else d for d in diags]
    data: dict[str, Any] = fm.data if fm.present and fm.ok else {}
    for d in spec_findings(data, slug, fm, path, frozenset() if strict else CLAUDE_CODE_FIELDS):
        if d.code == "skill-missing-description":
            d = d.model_copy(update={"message": d.message + "; described by its first body line, as Claude Code does"})
        diags.append(d.model_copy(update={"level": "warning", "plugin": plugin}))
    if not SPEC_NAME.match(slug):
        diags.append(_warn(path, plugin, "skill-folder-format", None,
                           f"folder name {slug!r} is not 1-64 lowercase ASCII letters, digits and single hyphens "
                           "(Anthropic's platform rule; the Agent Skills validator, skills-ref, also accepts "
                           "Unicode letters: strict validation may still pass)"))
    display = _text(data.get("name")) or ""
    description = _text(data.get("description")) or ""
    # printable ASCII holds none of the hidden characters: the search is skipped
    if not (display.isascii() and description.isascii() and display.isprintable() and description.isprintable()):
        for _line_no, cp in find_hidden_chars(display + "\n" + description):
            diags.append(_warn(path, plugin, "hidden-characters", None,
                               f"name or description contains the hidden character {cp}"))
            break
    key = "allowed_tools" if "allowed_tools" in data else "allowed-tools"
    allowed, problem = tools_of(data.get(key))
    if problem is not None:
        diags.append(_warn(path, plugin, "invalid-allowed-tools", _line(fm, key),
                           f"{problem}; activating this skill denies every tool (fail closed)"))
    for k in ("user-invocable", "disable-model-invocation"):
        v = data.get(k)
        if v is not None and v.__class__ is not bool and bool_field(v, False) is None:
            diags.append(_warn(path, plugin, "invalid-boolean", _line(fm, k), f"{k} must be a boolean"))
    return diags, allowed


def tools_of(value: Any) -> tuple[tuple[str, ...] | None, str | None]:
    """``allowed-tools`` parsed once: ``(allowed_tools, problem)``.

    ``allowed_tools`` is what :func:`_tools` keeps (None: absent; ``()``: deny
    all; items the grammar cannot split are one item, so they fail closed);
    ``problem`` is the message of the :class:`SelectorError`
    :func:`wskit.builtin_plugins.skills.tools.parse_selectors` raises for the value, or None.
    A text value's answer is cached (skills repeat the same few lists).
    """
    if value.__class__ is str:
        hit = _TOOLS_CACHE.get(value)
        if hit is None:
            if len(_TOOLS_CACHE) >= _TOOLS_CACHE_SIZE:
                _TOOLS_CACHE.clear()
            hit = _TOOLS_CACHE[value] = _parse_tools(value)
        return hit
    return _parse_tools(value)


_TOOLS_CACHE: dict[str, tuple[tuple[str, ...] | None, str | None]] = {}
_TOOLS_CACHE_SIZE = 1024


def _parse_tools(value: Any) -> tuple[tuple[str, ...] | None, str | None]:
    try:
        items = split_value(value)
    except SelectorError as err:
        return (str(value),), str(err)
    if items is None:
        return None, None
    problem = None
    try:
        for item in items:
            parse_selector(item)
    except SelectorError as err:
        problem = str(err)
    return tuple(str(x).strip() if isinstance(x, str) else f"<not a string: {x!r}>" for x in items), problem


def _line(fm, key: str) -> int | None:
    return fm.line_of(key)


def _err(path, plugin, code, line, message) -> Diagnostic:
    return Diagnostic(level="error", code=code, path=path, line=line, message=message, plugin=plugin)


def _warn(path, plugin, code, line, message) -> Diagnostic:
    return Diagnostic(level="warning", code=code, path=path, line=line, message=message, plugin=plugin)


def _text(v: object) -> str | None:
    """:func:`wskit.formats.mdwalk.text_field` (a plain ``str`` is stripped)."""
    return v.strip() if v.__class__ is str else text_field(v)


_KEY_TEXT = {True: "true", False: "false", None: "null"}


def _text_keys(metadata: dict, path: str, plugin: str | None, diags: list[Diagnostic]) -> dict[str, Any]:
    """``metadata`` with every key as text, as a JavaScript YAML reader keys a map
    (``1:`` → ``"1"``, ``true:`` → ``"true"``, ``~:`` → ``"null"``): a skill whose
    metadata had a number key made the whole skills loader fail (pydantic refuses
    the key), taking every other skill with it. Two keys that become the same text
    keep the last, with a warning."""
    out: dict[str, Any] = {}
    for k, v in metadata.items():
        if k.__class__ is str:
            text = k
        elif k is None or k.__class__ is bool:
            text = _KEY_TEXT[k]
        else:
            text = str(k)  # numbers, dates
        if text in out:
            diags.append(_warn(path, plugin, "skill-metadata-key", None,
                               f"metadata keys {text!r} collide once read as text; the last one is kept"))
        out[text] = v
    return out
