"""Prompt assembly: a session's skills catalog, static rules, output style and contextual
rules as prompt text, one documented call each, with provenance and budgets
(docs/integrating.md).

- :func:`skills_catalog` — the skills the model may use: the Agent Skills
  ``<available_skills>`` block (byte for byte what the specification's reference tool
  ``skills-ref to-prompt`` writes for the same skills) or a plain list
  (``- name: description``). Skills with ``disable-model-invocation: true`` are left
  out, as Claude Code leaves them out of what the model sees.
- :func:`static_rules` — the session's static instruction files and rules in Blade's
  ``<project-instructions>`` block (the ``rules`` component's selection, rendered by its
  ``render_text``).
- :func:`output_style` — the selected output style's prompt (built-in or custom), from the
  ``styles`` session component.
- :func:`contextual_rules` — rules a tool call made applicable (a ``RuleSelection``, or
  the ``RulesRequired``/``Proceed`` answer of ``session.check_invocation``), in the
  ``<contextual-project-instructions>`` block.
- :func:`system_prompt` — output style, static rules and skills catalog joined.

Each returns a :class:`PromptPart`: ``text``, ``provenance`` (kind, id, path, sha256 of
every item included), ``omitted`` (items left out by the budget, never dropped
silently), ``bytes`` and ``tokens``. A :class:`Budget` bounds a part in UTF-8 bytes, in
tokens counted by a function the host passes (its model's tokenizer), or both; items go
in whole, in order, until the next one would exceed a bound.

Prompt assembly is core: it joins what several capabilities give a session (skills,
rules, output styles) and reaches each through the session (``session.registry``,
``session.rules``, ``session.component("styles")``), never by importing a built-in.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

from wskit.values import FrozenValue

__all__ = [
    "Budget", "PromptPart", "contextual_rules", "output_style", "skills_catalog", "static_rules",
    "system_prompt",
]


class Budget(FrozenValue):
    """A bound on a prompt part.

    :ivar max_bytes: UTF-8 bytes of the part's text (None: no byte bound).
    :ivar max_tokens: tokens of the part's text as ``count_tokens`` counts them (None: no token bound).
    :ivar count_tokens: ``count_tokens(text) -> int``, the host's tokenizer; required with
        ``max_tokens``, and used to fill :attr:`PromptPart.tokens` when given.
    """

    max_bytes: int | None = None
    max_tokens: int | None = None
    count_tokens: Callable[[str], int] | None = None

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.count_tokens is None:
            raise ValueError("Budget(max_tokens=...) needs count_tokens, the host's token counter")
        for name in ("max_bytes", "max_tokens"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, int) or v < 0):
                raise ValueError(f"Budget.{name} must be a non-negative int, got {v!r}")

    def fits(self, text: str) -> bool:
        """Whether ``text`` is within every bound."""
        if self.max_bytes is not None and len(text.encode("utf-8")) > self.max_bytes:
            return False
        return self.max_tokens is None or self.count_tokens(text) <= self.max_tokens  # type: ignore[misc]


class PromptPart(FrozenValue):
    """Prompt text and where it came from.

    :ivar text: the text to put in the prompt (``""`` when nothing is included).
    :ivar provenance: ``{"kind", "id", "path", "sha256"}`` per item included, in order.
    :ivar omitted: ``{"kind", "id", "path", "reason"}`` per item left out (``over-budget``).
    :ivar bytes: UTF-8 size of ``text``. :ivar tokens: its token count (None without a counter).
    """

    text: str
    provenance: tuple[dict[str, Any], ...] = ()
    omitted: tuple[dict[str, Any], ...] = ()
    bytes: int = 0
    tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"text", "provenance", "omitted", "bytes", "tokens"}``."""
        return {"text": self.text, "provenance": list(self.provenance), "omitted": list(self.omitted),
                "bytes": self.bytes, "tokens": self.tokens}


def _ref(kind: str, res: Any, path: str | None = None) -> dict[str, Any]:
    prov = getattr(res, "provenance", None)
    return {"kind": kind, "id": getattr(res, "id", None),
            "path": path if path is not None else (str(prov.absolute_path) if prov is not None else None),
            "sha256": prov.sha256 if prov is not None else None}


def _assemble(head: str, items: Iterable[tuple[str, dict[str, Any]]], tail: str, sep: str,
              budget: Budget | None) -> PromptPart:
    """``head + item + sep + item … + tail``, items whole and in order while ``budget`` allows."""
    chosen: list[str] = []
    prov: list[dict[str, Any]] = []
    omitted: list[dict[str, Any]] = []
    for text, ref in items:
        trial = head + sep.join([*chosen, text]) + tail
        if omitted or (budget is not None and not budget.fits(trial)):
            omitted.append({**{k: ref[k] for k in ("kind", "id", "path")}, "reason": "over-budget"})
            continue
        chosen.append(text)
        prov.append(ref)
    text = head + sep.join(chosen) + tail if chosen or head or tail else ""
    counter = budget.count_tokens if budget is not None else None
    return PromptPart(text=text, provenance=tuple(prov), omitted=tuple(omitted), bytes=len(text.encode("utf-8")),
                      tokens=counter(text) if counter is not None else None)


def _model_visible_skills(session: Any) -> list[Any]:
    return [s for s in session.registry("skill").active() if not getattr(s, "disable_model_invocation", False)]


def _skill_name(skill: Any) -> str:
    # the name the model uses to call it: a plugin's skill keeps its qualified id
    return skill.id if getattr(skill.provenance, "plugin", None) else skill.name


def skills_catalog(session: Any, *, form: str = "available_skills", budget: Budget | None = None) -> PromptPart:
    """The skills catalog of ``session`` (a session or a workspace).

    :param form: ``available_skills`` (the Agent Skills XML block: ``<skill>`` with
        ``<name>``, ``<description>`` and ``<location>`` — the ``SKILL.md`` path — one per
        skill, as ``skills-ref to-prompt`` writes it) or ``plain`` (``- name: description``
        lines, descriptions on one line).
    :param budget: bound on the whole block; skills past it are in ``omitted``.
    :raises ValueError: an unknown ``form``.
    """
    skills = _model_visible_skills(session)
    if form == "available_skills":
        items = [("\n".join(["<skill>", "<name>", html.escape(_skill_name(s)), "</name>", "<description>",
                             html.escape(s.description or ""), "</description>", "<location>",
                             f"{s.directory}/SKILL.md", "</location>", "</skill>"]),
                  _ref("skill", s, f"{s.directory}/SKILL.md")) for s in skills]
        return _assemble("<available_skills>\n", items, "\n</available_skills>" if items else "</available_skills>",
                         "\n", budget)
    if form == "plain":
        items = [(f"- {_skill_name(s)}: {' '.join((s.description or '').split())}",
                  _ref("skill", s, f"{s.directory}/SKILL.md")) for s in skills]
        return _assemble("", items, "", "\n", budget)
    raise ValueError(f"form must be 'available_skills' or 'plain', not {form!r}")


def _rules_part(selection: Any, budget: Budget | None) -> PromptPart:
    files = list(getattr(selection, "files", ()))
    if not files:
        return PromptPart(text="")
    # render whole files while the budget allows: render_text of the first n files
    keep = len(files)
    while keep and budget is not None and not budget.fits(_subset(selection, files[:keep]).render_text()):
        keep -= 1
    text = _subset(selection, files[:keep]).render_text() if keep else ""
    counter = budget.count_tokens if budget is not None else None
    return PromptPart(text=text, provenance=tuple(_ref("rule", r) for r in files[:keep]),
                      omitted=tuple({"kind": "rule", "id": r.id, "path": str(r.provenance.absolute_path),
                                     "reason": "over-budget"} for r in files[keep:]),
                      bytes=len(text.encode("utf-8")), tokens=counter(text) if counter is not None else None)


def _subset(selection: Any, files: list[Any]) -> Any:
    return selection.copy_with(files=tuple(files))


def static_rules(session: Any, *, budget: Budget | None = None) -> PromptPart:
    """The static rules of ``session`` (``session.rules.static()``: instruction files and
    unconditional rules of the cwd) as a ``<project-instructions>`` block; they count as
    delivered from the start. Files past ``budget`` are in ``omitted`` (the rule catalog's
    own byte budget, ``static_budget``, applies first) and are recorded as not delivered
    (``session.rules.mark_omitted``): the rules barrier offers each again, as a contextual
    rule, with the first tool call touching a file in its scope, and a resumed session
    still owes it. The host delivers what the barrier returns (``contextual_rules``) and
    calls ``session.mark_delivered``.

    :raises UnknownComponentError: the ``rules`` built-in is blocked.
    """
    rules = session.rules
    part = _rules_part(rules.static(), budget)
    owed = rules.omitted_ids
    shown = [p["id"] for p in part.provenance if p["id"] in owed]
    if shown:  # omitted before, in the prompt now
        rules.mark_delivered(shown)
    if part.omitted:
        rules.mark_omitted([o["id"] for o in part.omitted])
    return part


def contextual_rules(answer: Any, *, budget: Budget | None = None) -> PromptPart:
    """Rules a tool call made applicable, as a ``<contextual-project-instructions>`` block.

    :param answer: a ``RuleSelection``, or what ``session.check_invocation`` returned
        (``Proceed`` or ``RulesRequired``: its ``rules``).
    """
    return _rules_part(getattr(answer, "rules", answer), budget)


def output_style(session: Any, style_id: str | None) -> PromptPart:
    """The prompt of the output style ``style_id`` (None: no style, empty text).

    :raises StyleUnavailableError: an invalid or unknown id.
    :raises UnknownComponentError: the ``styles`` built-in is blocked.
    """
    if style_id is None:
        return PromptPart(text="")
    style = session.component("styles").resolve(style_id)
    ref = {"kind": "style", "id": style.id,
           "path": str(style.provenance.absolute_path) if not style.builtin else None, "sha256": style.content_sha256}
    return PromptPart(text=style.prompt, provenance=(ref,), bytes=len(style.prompt.encode("utf-8")))


def system_prompt(session: Any, *, style: str | None = None, skills_form: str = "available_skills",
                  skills_budget: Budget | None = None, rules_budget: Budget | None = None,
                  count_tokens: Callable[[str], int] | None = None) -> PromptPart:
    """Output style, static rules and skills catalog, each non-empty part followed by a blank line.

    :param count_tokens: fills :attr:`PromptPart.tokens` of the whole (the parts' budgets
        carry their own counters).
    """
    parts = [output_style(session, style), static_rules(session, budget=rules_budget),
             skills_catalog(session, form=skills_form, budget=skills_budget)]
    text = "\n\n".join(p.text for p in parts if p.text)
    return PromptPart(text=text, provenance=tuple(r for p in parts for r in p.provenance),
                      omitted=tuple(o for p in parts for o in p.omitted), bytes=len(text.encode("utf-8")),
                      tokens=count_tokens(text) if count_tokens is not None else None)

