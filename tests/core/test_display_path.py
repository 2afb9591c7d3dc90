"""``display_path`` gives pathlib's answer for every input, whether it takes
the string fast path or not (the fast path exists for 10,000-row listings)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from wskit.models import Provenance, Scope, display_path


def _pathlib(path, relative_to) -> str:
    p, base = Path(path), Path(relative_to)
    try:
        return p.relative_to(base).as_posix()
    except ValueError:
        return str(p)


_part = st.sampled_from(["a", "b", "ab", ".", "..", "", "x y", "é", ".hidden", "a.md"])
_path = st.builds(lambda lead, parts, trail: lead + "/".join(parts) + trail,
                  st.sampled_from(["/", "//", "///", "", "./"]),
                  st.lists(_part, max_size=5), st.sampled_from(["", "/", "/."]))


@settings(max_examples=3000, deadline=None)
@given(_path, _path, st.booleans(), st.booleans())
def test_display_path_equals_pathlib(path: str, base: str, path_obj: bool, base_obj: bool) -> None:
    a = Path(path) if path_obj else path
    b = Path(base) if base_obj else base
    assert display_path(a, b) == _pathlib(a, b)


def test_fast_path_cases_named() -> None:
    assert display_path("/w/p/.claude/skills/x/SKILL.md", Path("/w/p")) == ".claude/skills/x/SKILL.md"
    assert display_path("/w/p", "/w/p") == "."
    assert display_path("/w/pq/x", "/w/p") == "/w/pq/x"          # a sibling sharing a prefix is outside
    assert display_path("/x", "/") == "x"
    assert display_path("//w/x", "/w") == "//w/x"                # pathlib keeps a leading //


def test_absolute_str_displays_like_absolute_path() -> None:
    for root, rel in [("/w/p", ".claude/skills/a/SKILL.md"), ("/w/p", "./a//b"), ("/", "x"), ("/w/p", "")]:
        prov = Provenance(scope=Scope.PROJECT, source_root=root, path=rel, sha256="0" * 64)
        for base in ("/w/p", "/w", "/", "/other"):
            assert display_path(prov.absolute_str, base) == display_path(prov.absolute_path, base)
