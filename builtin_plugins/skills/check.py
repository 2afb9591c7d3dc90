"""Skill validation: strict (the Agent Skills specification exactly) and lenient.

Strict mode applies the specification (reference/conventions.md §5.1) the way
its reference validator ``skills-ref`` does (§5.2), so that
``wsctl skills validate --strict`` agrees with ``skills-ref validate``:

- only the fields ``name, description, license, allowed-tools, metadata,
  compatibility`` (``skill-unknown-field``);
- ``name`` present and non-empty, NFKC-normalised after strip, ≤ 64 characters,
  lowercase, no leading/trailing hyphen, no ``--``, only letters, digits and
  ``-``, equal to its folder name (``skill-name-*``);
- ``description`` present, non-empty, ≤ 1024 characters (measured before strip);
- ``compatibility`` a string of ≤ 500 characters;
- the file starts with ``---`` (a BOM is refused, ``skill-bom``) and the YAML
  parses as written (the lenient ``: ``-quoting retry is an error) without
  flow collections (``skill-yaml-flow-style``: the reference validator reads
  YAML with strictyaml, which refuses ``[a, b]`` and ``{a: b}``).

Lenient mode (the default of discovery, design §5) loads what hosts load: it
needs a parseable frontmatter and a description; everything strict would
reject is reported as a warning with the same code.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wskit import fs
from wskit.formats.frontmatter import Frontmatter, read_frontmatter
from wskit.models import Diagnostic

#: Frontmatter fields the specification allows.
SPEC_FIELDS = frozenset({"name", "description", "license", "allowed-tools", "metadata", "compatibility"})
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
BOM = b"\xef\xbb\xbf"
#: Codes of findings that strict mode turns from warnings into errors.
STRICT_CODES = frozenset({
    "skill-unknown-field", "skill-missing-name", "skill-name-too-long", "skill-name-format",
    "skill-name-mismatch", "skill-missing-description", "skill-description-too-long",
    "skill-compatibility-invalid", "skill-compatibility-too-long", "skill-bom", "yaml-quoted-retry",
    "skill-yaml-flow-style",
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
    either has none and is not composed at all (issue 8, B6: composing with
    PyYAML's pure-Python loader was 3/4 of skill discovery); otherwise the block
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


def spec_findings(data: dict[str, Any], slug: str, fm: Frontmatter, path: str) -> list[Diagnostic]:
    """Every way ``data`` (a parsed frontmatter of ``<slug>/SKILL.md``) breaks the
    specification, as ``error`` diagnostics with codes and lines."""
    out: list[Diagnostic] = []

    def err(code: str, key: str | None, msg: str) -> None:
        out.append(Diagnostic(level="error", code=code, path=path,
                              line=fm.line_of(key) if key else None, message=msg))

    if not SPEC_FIELDS.issuperset(data):
        for key in sorted(set(data) - SPEC_FIELDS):
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


@dataclass
class ValidationReport:
    """Result of :func:`validate_skill`.

    :ivar path: the ``SKILL.md`` checked (absolute).
    :ivar errors: diagnostics that make the skill invalid in the chosen mode.
    :ivar warnings: the rest (in lenient mode: what strict would reject).
    """

    path: str
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    def to_json(self, relative_to: str | Path | None = None) -> dict[str, Any]:
        """``{"valid", "errors": [{"path","line","code","message"}], "warnings": [...]}`` (wsctl contract)."""

        def one(d: Diagnostic) -> dict[str, Any]:
            j = d.to_json(relative_to)
            return {"path": j["path"], "line": j["line"], "code": j["code"], "message": j["message"]}

        return {"valid": self.valid, "errors": [one(d) for d in self.errors],
                "warnings": [one(d) for d in self.warnings]}


def validate_skill(path: str | os.PathLike[str], *, strict: bool = False) -> ValidationReport:
    """Validate the skill folder ``path`` (or its ``SKILL.md``).

    Reads through safe file access (links, special files and secret paths are
    refused and reported). In lenient mode the loader's rules apply
    (:func:`wskit.builtin_plugins.skills.lint.check_skill`); in strict mode
    :func:`spec_findings` and the parse rules above are errors.

    :returns: :class:`ValidationReport` (never raises for bad content).
    """
    p = Path(path).absolute()
    if p.name == "SKILL.md" and not p.is_dir():
        p = p.parent
    skill_md = str(p / "SKILL.md")
    report = ValidationReport(path=skill_md)
    if not p.exists():
        report.errors.append(Diagnostic(level="error", code="not-found", path=str(p), message="path does not exist"))
        return report
    if not p.is_dir():
        report.errors.append(Diagnostic(level="error", code="not-a-folder", path=str(p),
                                        message="a skill is a folder holding SKILL.md"))
        return report
    try:
        fm, res = read_frontmatter(str(p.parent), f"{p.name}/SKILL.md", max_bytes=1 << 20)
    except fs.SafeFsError as e:
        code = "skill-missing-file" if e.code == "not-found" else e.code
        msg = "required file SKILL.md is missing" if e.code == "not-found" else e.message_for(str(skill_md))
        report.errors.append(Diagnostic(level="error", code=code, path=skill_md, message=msg,
                                        line=getattr(e, "line", None)))
        return report
    from wskit.builtin_plugins.skills.lint import check_skill

    for d in check_skill(fm, p.name, skill_md, res.raw.startswith(BOM)):
        if strict and d.level == "warning" and d.code in STRICT_CODES:
            d = d.model_copy(update={"level": "error"})
        (report.errors if d.level == "error" else report.warnings).append(d)
    return report
