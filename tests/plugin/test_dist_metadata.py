"""``dist_name_version`` reads Name/Version as ``importlib.metadata`` does (issue 8,
B7: without importing and running the :mod:`email` parser for plain headers)."""

from __future__ import annotations

import importlib.metadata as md

from hypothesis import example, given, settings
from hypothesis import strategies as st

from wskit.plugin.manager import dist_name_version


class _Dist(md.Distribution):
    def __init__(self, text: str | None) -> None:
        self._text = text

    def read_text(self, filename):  # noqa: D102
        return self._text if filename == "METADATA" else None

    def locate_file(self, path):  # noqa: D102
        raise FileNotFoundError(path)


_FIELD = st.sampled_from(["Name", "name", "NAME", "Version", "version", "Summary", "X-Y", "From ", "Na me", "",
                          "Metadata-Version", "Requires-Dist"])
_VALUE = st.text(st.sampled_from(list("ab1. \t:é-_")), max_size=8)
_SEP = st.sampled_from([":", ": ", ":\t", ":  ", " : ", ""])
_LINE = st.tuples(_FIELD, _SEP, _VALUE).map("".join) | st.sampled_from([" folded", "\tfolded", "", "\r", "x\r"])
_TEXT = st.lists(_LINE, max_size=7).map("\n".join).flatmap(
    lambda head: st.sampled_from(["", "\n", "\n\n", "\n\nBody: x\nName: z\n", "\r\n"]).map(lambda tail: head + tail))


@settings(max_examples=400, deadline=None)
@given(_TEXT)
@example("Metadata-Version: 2.1\nName: wskit-x\nVersion: 1.0\n\nbody")
@example("Name: a\nVersion: 1\n")
@example("Name: a\nname: b\nVersion:  2 \n")
@example("Name: a\n folded\nVersion: 1\n")
@example("Version: 1\n\nName: a\n")
def test_name_version_equal_importlib_metadata(text: str) -> None:
    import warnings

    dist = _Dist(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # importlib.metadata warns on a missing header
        expected = (dist.name, dist.version)
    assert dist_name_version(dist) == expected


def test_no_distribution() -> None:
    assert dist_name_version(None) == (None, None)


def test_plain_headers_take_the_fast_path() -> None:
    from wskit.plugin.manager import _name_version_headers

    assert _name_version_headers("Metadata-Version: 2.1\nName: x\nVersion: 1.0\n\nName: y") == ("x", "1.0")
    assert _name_version_headers("Name: x\n folded\nVersion: 1\n") is None


def _dist_info(site, folder: str, name: str, entry_points: str | None) -> None:
    d = site / folder
    d.mkdir(parents=True)
    (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if entry_points is not None:
        (d / "entry_points.txt").write_text(entry_points)


def test_entry_point_scan_equals_importlib_metadata(tmp_path, monkeypatch) -> None:
    """Same entry points, same order, same de-duplication (first folder on the path
    of a normalized name wins) as ``importlib.metadata.entry_points(group="wskit")``."""
    import sys

    from wskit.plugin.manager import _entry_points

    first, second = tmp_path / "site1", tmp_path / "site2"
    _dist_info(first, "a_pkg-1.0.dist-info", "A.Pkg", "[wskit]\na = a_pkg.plugin\n[console_scripts]\nx = y:z\n")
    _dist_info(first, "b-2.0.dist-info", "b", "[console_scripts]\nwskit-tool = b:main\n")  # 'wskit', other group
    _dist_info(first, "c-1.0.dist-info", "c", None)
    _dist_info(second, "a.pkg-9.0.dist-info", "a-pkg", "[wskit]\nshadowed = other:thing\n")  # same normalized name
    _dist_info(second, "d-1.0.dist-info", "d", "[wskit]\nd1 = d.one\nd2 = d.two:obj\n[wskit.extra]\ne = e\n")
    _dist_info(second, "legacy.egg-info", "legacy", "[wskit]\nlegacy = legacy.mod\n")
    monkeypatch.setattr(sys, "path", [str(first), str(second)])
    expected = list(md.entry_points(group="wskit"))
    got = _entry_points()
    assert got == expected
    assert [(ep.name, ep.value, ep.dist.name) for ep in got] == [(ep.name, ep.value, ep.dist.name) for ep in expected]
    assert sorted(ep.name for ep in got) == ["a", "d1", "d2", "legacy"]  # not "shadowed"
