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
from pathlib import Path
from typing import Any

from wskit import fs
from wskit.builtin_plugins.skills.lint import check_skill
from wskit.builtin_plugins.skills.spec import STRICT_CODES
from wskit.formats.frontmatter import read_frontmatter
from wskit.models import Diagnostic
from wskit.values import Value, field

#: UTF-8 byte-order mark (strict validation refuses it: ``skill-bom``).
BOM = b"\xef\xbb\xbf"


class ValidationReport(Value):
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
    for d in check_skill(fm, p.name, skill_md, res.raw.startswith(BOM), strict=strict):
        if strict and d.level == "warning" and d.code in STRICT_CODES:
            d = d.model_copy(update={"level": "error"})
        (report.errors if d.level == "error" else report.warnings).append(d)
    return report
