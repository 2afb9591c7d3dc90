"""Frozen models share their ``__pydantic_fields_set__`` (to save memory) without changing behaviour."""

from __future__ import annotations

from wskit.models import Diagnostic, Provenance, Scope


def _prov(path: str, plugin: str | None = None) -> Provenance:
    kw = {"plugin": plugin} if plugin else {}
    return Provenance(scope=Scope.PROJECT, source_root="/r", path=path, sha256="0" * 64, **kw)


def test_instances_with_the_same_fields_share_one_set():
    a, b = _prov("a.md"), _prov("b.md")
    assert a.model_fields_set == b.model_fields_set == {"scope", "source_root", "path", "sha256"}
    assert a.__pydantic_fields_set__ is b.__pydantic_fields_set__
    c = _prov("c.md", plugin="p")
    assert c.model_fields_set == {"scope", "source_root", "path", "sha256", "plugin"}
    assert c.__pydantic_fields_set__ is not a.__pydantic_fields_set__


def test_model_copy_with_update_does_not_touch_the_shared_set():
    a, b = _prov("a.md"), _prov("b.md")
    c = a.model_copy(update={"plugin": "x"})
    assert c.plugin == "x" and "plugin" in c.model_fields_set
    assert "plugin" not in a.model_fields_set and "plugin" not in b.model_fields_set
    assert a.model_dump(exclude_unset=True) == {"scope": Scope.PROJECT, "source_root": "/r", "path": "a.md",
                                                "sha256": "0" * 64}


def test_exclude_unset_and_equality_unchanged():
    d1 = Diagnostic(level="warning", code="x", message="m")
    d2 = Diagnostic(level="warning", code="x", message="m")
    assert d1 == d2
    assert set(d1.model_dump(exclude_unset=True)) == {"level", "code", "message"}
